import Glibc

/// A UDP socket bound on 127.0.0.1 for a test to receive what a subprocess sends; closed with
/// the object.
final class LoopbackUDP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let descriptor: Int32
    let port: Int

    /// Binds `port` (0: any free one).
    init(port: Int = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw Failure(description: "cannot bind UDP 127.0.0.1:\(port)")
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// An even port P with P and P + 1 both bound, as an RTP sender expects (RTCP on P + 1).
    static func rtpPair() throws -> (rtp: LoopbackUDP, rtcp: LoopbackUDP) {
        for _ in 0..<50 {
            let probe = try LoopbackUDP()
            guard probe.port % 2 == 0, probe.port < 65535, let rtcp = try? LoopbackUDP(port: probe.port + 1) else { continue }
            return (probe, rtcp)
        }
        throw Failure(description: "no free RTP/RTCP port pair on 127.0.0.1")
    }

    deinit { close(descriptor) }

    /// Every datagram that arrives until `milliseconds` pass with none.
    func receiveAll(quietMilliseconds milliseconds: Int32) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, milliseconds) > 0 {
            let length = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard length > 0 else { break }
            datagrams.append(Array(buffer[..<length]))
        }
        return datagrams
    }
}
