#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small loopback socket helpers for the tests: a free port for a PostgreSQL server of our own,
/// and a listener that accepts connections (the kernel completes the handshake) but never
/// answers, to prove a silent server cannot hang the store.
enum LoopbackSockets {
    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = try boundSocket()
        defer { close(fd) }
        return try port(of: fd)
    }

    /// A listening socket nobody accepts on; close it with `close(fd)`.
    static func silentListener() throws -> (fd: Int32, port: Int) {
        let fd = try boundSocket()
        guard listen(fd, 16) == 0 else { close(fd); throw SocketError("listen failed") }
        return (fd, try port(of: fd))
    }

    struct SocketError: Error, CustomStringConvertible { var description: String; init(_ d: String) { description = d } }

    private static func boundSocket() throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw SocketError("bind failed") }
        return fd
    }

    private static func port(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
