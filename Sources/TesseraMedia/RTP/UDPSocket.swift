import CFFmpeg
import Glibc

/// A bound, non-blocking UDP socket for receiving RTP or RTCP; closed with the object.
///
/// Binding is where a busy port shows: the error names the port at once instead of the input
/// waiting for packets that go to another process.
final class UDPSocket {
    let descriptor: Int32
    let port: Int

    /// Binds `port` on every interface, IPv6 and IPv4 alike (one dual-stack socket; IPv4 only
    /// where the kernel has no IPv6), so an SFU can be told either kind of `--rtp-address`. The
    /// receive buffer is enlarged so a burst (a keyframe of a few hundred packets) is not dropped
    /// by the kernel while the input thread decodes.
    init(port: Int, receiveBufferBytes: Int32 = 4 << 20) throws {
        guard (1...65535).contains(port) else { throw MediaError("UDP port \(port) is out of range") }
        let flags = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        var family = AF_INET6
        var descriptor = socket(AF_INET6, flags, 0)
        if descriptor < 0 {
            family = AF_INET
            descriptor = socket(AF_INET, flags, 0)
        }
        guard descriptor >= 0 else { throw MediaError("cannot open a UDP socket: \(Self.lastErrorText())") }
        var size = receiveBufferBytes
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let bound = family == AF_INET6 ? Self.bindDualStack(descriptor, port: port) : Self.bindIPv4(descriptor, port: port)
        if bound != 0 {
            let code = tessera_errno()
            close(descriptor)
            if code == EADDRINUSE { throw MediaError("UDP port \(port) is already in use") }
            throw MediaError("cannot bind UDP port \(port): \(String(cString: strerror(code)))")
        }
        self.descriptor = descriptor
        self.port = port
    }

    private static func bindDualStack(_ descriptor: Int32, port: Int) -> Int32 {
        var v6Only: Int32 = 0
        _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &v6Only, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in6()  // all zeros: the IPv6 wildcard address
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }

    private static func bindIPv4(_ descriptor: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: INADDR_ANY)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    deinit { close(descriptor) }

    /// Reads one waiting datagram into `buffer`; nil when none is waiting. A datagram longer than
    /// the buffer is reported as such (`truncated`) so it is counted, not parsed.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, truncated: Bool)? {
        let length = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC))
        guard length >= 0 else { return nil }
        return (min(length, buffer.count), length > buffer.count)
    }

    /// Waits up to `timeoutMilliseconds` for any of `sockets` to be readable.
    /// Also returns when `wake` (an eventfd, or -1 for none) becomes readable. A negative timeout
    /// waits without limit.
    static func wait(for sockets: [UDPSocket], wake: Int32, timeoutMilliseconds: Int32) {
        var descriptors = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        if wake >= 0 { descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
    }

    private static func lastErrorText() -> String { String(cString: strerror(tessera_errno())) }
}

/// Whether UDP ports can be bound now, for refusing a task whose RTP ports another process (or
/// another task) holds before anything is started.
public enum UDPPortProbe {
    /// The first of `ports` that cannot be bound, with the reason; nil when all are free.
    public static func firstBusy(_ ports: [Int]) -> (port: Int, reason: String)? {
        var held: [UDPSocket] = []
        defer { held.removeAll() }
        for port in ports {
            do {
                held.append(try UDPSocket(port: port, receiveBufferBytes: 0))
            } catch {
                return (port, "\(error)")
            }
        }
        return nil
    }
}
