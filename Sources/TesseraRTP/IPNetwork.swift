#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address block (`10.0.0.0/8`, `fd00::/8`, or one address, `/32` / `/128`),
/// held as network-order bytes so that membership is a prefix compare.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]
    public let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil when it is not one. Only the strict forms
    /// (`inet_pton`) are read here: a deny-list is written by an operator, not by an attacker.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.parseStrict(String(parts[0])) else { return nil }
        let maximum = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...maximum).contains(prefix) else { return nil }
            prefixLength = prefix
        } else {
            prefixLength = maximum
        }
        self.bytes = bytes
    }

    /// Whether `address` (4 or 16 bytes) lies in the block. An IPv4-mapped IPv6 address
    /// (`::ffff:10.0.0.1`) counts as the IPv4 address it carries, since that is where it leads.
    public func contains(_ address: [UInt8]) -> Bool {
        let address = Self.unmapped(address)
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address, bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String {
        let address: String
        if bytes.count == 4 {
            address = bytes.map(String.init).joined(separator: ".")
        } else {
            address = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return "\(address)/\(prefixLength)"
    }

    /// The 4 IPv4 bytes of `::ffff:a.b.c.d`, else the address unchanged.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF
        else { return address }
        return Array(address[12..<16])
    }

    private static func parseStrict(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
