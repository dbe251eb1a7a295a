/// RFC 4648 base64 for what SDP carries in it: H.264 parameter sets (`sprop-parameter-sets`)
/// and SRTP master keys (`a=crypto ... inline:`).
enum Base64 {
    /// The bytes of `text`, padding optional (some senders drop it); nil on any other character
    /// or an impossible length.
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var digits = text[...]
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard text.count - digits.count <= 2, digits.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0
        for character in digits {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return bytes
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 with padding: every 3 bytes become 4 digits of 6 bits each.
    static func encode(_ bytes: [UInt8]) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let word = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32(16 - 8 * $1.offset) }
            for digit in 0..<4 {
                digits.append(digit <= chunk.count ? alphabet[Int(word >> UInt32(18 - 6 * digit) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
