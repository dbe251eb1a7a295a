#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a URL's host into the addresses a connection to it could reach, the way FFmpeg's network
/// protocols do (`getaddrinfo`). Using the same resolver matters for the deny-list: `getaddrinfo`
/// also reads the legacy forms `127.1`, `0x7f000001` and `2130706433` as 127.0.0.1, and a check
/// that parsed only dotted quads would let those through.
public enum HostResolver {
    /// Every address `host` resolves to (4 or 16 bytes each), or nil when it does not resolve.
    /// Blocks while DNS answers; only called when the deny-list has address blocks.
    public static func addresses(of host: String) -> [[UInt8]]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr {
                switch current.pointee.ai_family {
                case AF_INET:
                    socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var address = v4.pointee.sin_addr
                        addresses.append(withUnsafeBytes(of: &address) { Array($0) })
                    }
                case AF_INET6:
                    socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var address = v6.pointee.sin6_addr
                        addresses.append(withUnsafeBytes(of: &address) { Array($0) })
                    }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? nil : addresses
    }
}
