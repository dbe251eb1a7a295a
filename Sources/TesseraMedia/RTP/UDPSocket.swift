import CFFmpeg
import Glibc

/// A bound, non-blocking UDP socket for receiving RTP or RTCP; closed with the object.
///
/// Binding is where a busy port shows: the error names the port at once instead of the input
/// waiting for packets that go to another process.
package final class UDPSocket: Sendable {
    let descriptor: Int32
    let port: Int

    /// Binds `port` on `bindAddress` (an IPv4 or IPv6 literal), or on every interface when it is
    /// nil or `::` (one dual-stack socket, IPv6 and IPv4 alike; IPv4 only where the kernel has no
    /// IPv6), or on every IPv4 interface for `0.0.0.0`. `RTPBindAddress` says which address an
    /// input's sockets get. The receive buffer is enlarged so a burst (a keyframe of a few
    /// hundred packets) is not dropped by the kernel while the input thread decodes.
    package init(port: Int, bindAddress: String? = nil, receiveBufferBytes: Int32 = 4 << 20) throws {
        guard (1...65535).contains(port) else { throw MediaError("UDP port \(port) is out of range") }
        let target = try UDPBindTarget(bindAddress)
        let descriptor = try Self.open(target)
        var size = receiveBufferBytes
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        if target.bind(descriptor, port: port) != 0 {
            let code = tessera_errno()
            close(descriptor)
            let place = bindAddress.map { "UDP port \(port) on \($0)" } ?? "UDP port \(port)"
            switch code {
            case EADDRINUSE: throw MediaError("\(place) is already in use")
            case EADDRNOTAVAIL: throw MediaError("cannot bind \(place): \(bindAddress ?? "") is not an address of this host")
            default: throw MediaError("cannot bind \(place): \(String(cString: strerror(code)))")
            }
        }
        self.descriptor = descriptor
        self.port = port
    }

    /// A socket for sending to `destination` (4 or 16 address bytes) from an ephemeral port of
    /// every interface of its family: an RTP output's, whose receiver learns where to send its
    /// RTCP from the packets' source.
    package static func sender(for destination: [UInt8]) throws -> UDPSocket {
        try UDPSocket(ephemeralOn: destination.count == 4 ? "0.0.0.0" : "::")
    }

    private init(ephemeralOn address: String) throws {
        let target = try UDPBindTarget(address)
        let descriptor = try Self.open(target)
        guard target.bind(descriptor, port: 0) == 0 else {
            let reason = String(cString: strerror(tessera_errno()))
            close(descriptor)
            throw MediaError("cannot bind a UDP port to send from: \(reason)")
        }
        self.descriptor = descriptor
        port = 0
    }

    /// Whether `address` (a literal) is one of this host's: binding it to an ephemeral port works.
    static func isLocalAddress(_ address: String) -> Bool {
        guard let target = try? UDPBindTarget(address), case .specific = target,
              let descriptor = try? Self.open(target) else { return false }
        defer { close(descriptor) }
        return target.bind(descriptor, port: 0) == 0
    }

    /// A socket of the target's family; the dual-stack wildcard falls back to IPv4 on a kernel
    /// without IPv6.
    private static func open(_ target: UDPBindTarget) throws -> Int32 {
        let flags = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        var descriptor = socket(target.family, flags, 0)
        if descriptor < 0, case .everyInterface = target { descriptor = socket(AF_INET, flags, 0) }
        guard descriptor >= 0 else { throw MediaError("cannot open a UDP socket: \(lastErrorText())") }
        return descriptor
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
/// another task) holds before anything is started; probed on the address the input will bind.
public enum UDPPortProbe {
    /// The first of `ports` that cannot be bound on `bindAddress` (nil: every interface), with
    /// the reason; nil when all are free.
    public static func firstBusy(_ ports: [Int], bindAddress: String? = nil) -> (port: Int, reason: String)? {
        var held: [UDPSocket] = []
        defer { held.removeAll() }
        for port in ports {
            do {
                held.append(try UDPSocket(port: port, bindAddress: bindAddress, receiveBufferBytes: 0))
            } catch {
                return (port, "\(error)")
            }
        }
        return nil
    }

    /// Whether `address` (an IP literal, not a wildcard) is an address of this host.
    public static func isLocalAddress(_ address: String) -> Bool { UDPSocket.isLocalAddress(address) }
}
