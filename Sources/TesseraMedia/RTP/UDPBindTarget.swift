import Glibc
import TesseraRTP

/// Where a UDP socket binds: every interface (dual-stack), every IPv4 interface, or one address.
enum UDPBindTarget {
    /// `::` or no address: IPv6 and IPv4 on one socket.
    case everyInterface
    /// `0.0.0.0`.
    case everyIPv4Interface
    case specific(IPNetwork)

    init(_ address: String?) throws {
        switch address {
        case nil, .some("::"): self = .everyInterface
        case .some("0.0.0.0"): self = .everyIPv4Interface
        case let text?:
            guard RTPBindAddress.isAddressLiteral(text), let network = IPNetwork(text) else {
                throw MediaError("RTP bind address \"\(text)\" is not an IPv4 or IPv6 address")
            }
            self = .specific(network)
        }
    }

    var family: Int32 {
        switch self {
        case .everyInterface: return AF_INET6
        case .everyIPv4Interface: return AF_INET
        case .specific(let network): return network.bytes.count == 4 ? AF_INET : AF_INET6
        }
    }

    /// `bind(2)`'s result (0, or -1 with errno set). A socket the dual-stack wildcard opened as
    /// IPv4 (a kernel without IPv6) binds the IPv4 wildcard.
    func bind(_ descriptor: Int32, port: Int) -> Int32 {
        let networkPort = in_port_t(UInt16(port).bigEndian)
        var bytes: [UInt8]
        switch self {
        case .everyInterface:
            var domain: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_DOMAIN, &domain, &length)
            guard domain == AF_INET6 else { return Self.bindIPv4(descriptor, port: networkPort, bytes: [0, 0, 0, 0]) }
            // Accept IPv4 too, whatever the system's default for IPV6_V6ONLY.
            var v6Only: Int32 = 0
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6Only, socklen_t(MemoryLayout<Int32>.size))
            bytes = Array(repeating: 0, count: 16)
        case .everyIPv4Interface:
            bytes = [0, 0, 0, 0]
        case .specific(let network):
            bytes = network.bytes
        }
        return bytes.count == 4 ? Self.bindIPv4(descriptor, port: networkPort, bytes: bytes)
            : Self.bindIPv6(descriptor, port: networkPort, bytes: bytes)
    }

    private static func bindIPv4(_ descriptor: Int32, port: in_port_t, bytes: [UInt8]) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port
        withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes) }
        return bind(descriptor, &address)
    }

    private static func bindIPv6(_ descriptor: Int32, port: in_port_t, bytes: [UInt8]) -> Int32 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
        return bind(descriptor, &address)
    }

    /// `bind(2)` with a `sockaddr_in` or `sockaddr_in6`.
    private static func bind<Address>(_ descriptor: Int32, _ address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }
}
