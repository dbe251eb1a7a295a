import CFFmpeg
import Glibc
import TesseraRTP

/// Datagrams with their peers: where one came from (to latch and filter senders, and to answer
/// their RTCP), and sending RTCP feedback back from the port the sender knows.
extension UDPSocket {
    /// One datagram read into the caller's buffer, with where it came from.
    struct Received {
        var length: Int
        /// Longer than the buffer: counted, never parsed.
        var truncated: Bool
        var sender: RTPEndpoint
    }

    /// Like `receive(into:)`, with the sender's address and port.
    func receiveWithSender(into buffer: UnsafeMutableRawBufferPointer) -> Received? {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let length = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, &size)
            }
        }
        guard length >= 0 else { return nil }
        return Received(length: min(length, buffer.count), truncated: length > buffer.count, sender: Self.endpoint(storage))
    }

    /// Sends one datagram to `peer`; false when the kernel refused it (no route, a full buffer):
    /// feedback is advisory, so a refused one is counted by the caller, never retried here.
    @discardableResult
    func send(_ bytes: [UInt8], to peer: RTPEndpoint) -> Bool {
        var storage = sockaddr_storage()
        guard let size = Self.socketAddress(peer, family: family, into: &storage) else { return false }
        let sent = bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, payload.baseAddress, payload.count, Int32(MSG_DONTWAIT), $0, size)
                }
            }
        }
        return sent == bytes.count
    }

    /// The address family the socket was opened with (a dual-stack IPv6 socket, or IPv4).
    private var family: Int32 {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        return result == 0 ? Int32(storage.ss_family) : AF_INET6
    }

    private static func endpoint(_ storage: sockaddr_storage) -> RTPEndpoint {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    let raw = address.pointee.sin_addr.s_addr  // network order in memory
                    let bytes = withUnsafeBytes(of: raw) { Array($0) }
                    return RTPEndpoint(address: bytes, port: UInt16(bigEndian: address.pointee.sin_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                let bytes = withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                return RTPEndpoint(address: bytes, port: UInt16(bigEndian: address.pointee.sin6_port))
            }
        }
    }

    /// `peer` as the socket's family wants it: an IPv4 peer of a dual-stack socket goes as an
    /// IPv4-mapped IPv6 address. Nil when an IPv4 socket is asked to reach an IPv6 peer.
    private static func socketAddress(_ peer: RTPEndpoint, family: Int32,
                                      into storage: inout sockaddr_storage) -> socklen_t? {
        withUnsafeMutablePointer(to: &storage) { pointer in
            if family == AF_INET {
                guard peer.address.count == 4 else { return nil }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    address.pointee.sin_family = sa_family_t(AF_INET)
                    address.pointee.sin_port = in_port_t(peer.port.bigEndian)
                    withUnsafeMutableBytes(of: &address.pointee.sin_addr) { $0.copyBytes(from: peer.address) }
                    return socklen_t(MemoryLayout<sockaddr_in>.size)
                }
            }
            let bytes = peer.address.count == 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + peer.address : peer.address
            guard bytes.count == 16 else { return nil }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = in_port_t(peer.port.bigEndian)
                withUnsafeMutableBytes(of: &address.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
        }
    }
}
