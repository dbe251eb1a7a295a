/// HMAC-SHA256 (RFC 2104): `H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message))`, the key first hashed when
/// longer than a block and zero-padded to one.
public enum HMACSHA256 {
    public static func authenticationCode<Key: Collection, Message: Sequence>(key: Key, message: Message) -> [UInt8]
    where Key.Element == UInt8, Message.Element == UInt8 {
        var block = key.count > SHA256.blockByteCount ? SHA256.hash(key) : Array(key)
        block += [UInt8](repeating: 0, count: SHA256.blockByteCount - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Lower-case hex of the code, as the `X-Tessera-Signature` header carries it.
    public static func hexAuthenticationCode<Key: Collection, Message: Sequence>(key: Key, message: Message) -> String
    where Key.Element == UInt8, Message.Element == UInt8 {
        authenticationCode(key: key, message: message).lowercaseHex
    }
}

extension Array where Element == UInt8 {
    /// Two lower-case hex digits per byte.
    public var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
