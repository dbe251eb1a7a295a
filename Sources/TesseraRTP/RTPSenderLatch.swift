/// Where a datagram came from: an IPv4 (4 bytes) or IPv6 (16 bytes) address and a UDP port.
/// An IPv4-mapped IPv6 address (a dual-stack socket's view of an IPv4 sender) is kept as the
/// IPv4 address it carries, so the two views of one sender compare equal.
public struct RTPEndpoint: Hashable, Sendable, CustomStringConvertible {
    public let address: [UInt8]
    public let port: UInt16

    public init(address: [UInt8], port: UInt16) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        self.address = address.count == 16 && Array(address.prefix(12)) == mappedPrefix ? Array(address.suffix(4)) : address
        self.port = port
    }

    /// `10.0.0.7:5004`, `[fd00::1]:5004`.
    public var description: String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        let groups = stride(from: 0, to: address.count, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
        return "[\(groups.joined(separator: ":"))]:\(port)"
    }

    /// The same host, another port: where a sender's RTCP goes when its RTP comes from here.
    public func withPort(_ port: UInt16) -> RTPEndpoint { RTPEndpoint(address: address, port: port) }
}

/// Which sender an RTP stream listens to when the task names none (`rtp.source`): the first one,
/// latched by address and port, so nobody else who can reach the port can replace a participant's
/// picture or voice in a live broadcast.
///
/// A state machine with no clock or I/O. Another endpoint is taken only once the latched sender
/// has been silent: for `silence` (the input's timeout) in general, or for the shorter
/// `sameHostSilence` when it comes from the latched sender's own address — an SFU that re-issues a
/// forward for a rejoining publisher sends from a new socket of the same host.
public struct RTPSenderLatch: Sendable {
    public enum Verdict: Sendable, Equatable {
        /// From the latched sender (or the first one, now latched).
        case accept
        /// A new sender after the old one fell silent; it is latched from now on.
        case switched(from: RTPEndpoint)
        /// From someone else while the latched sender is still active: drop it.
        case refuse(latched: RTPEndpoint)
    }

    public let silenceMicroseconds: Int64
    public let sameHostSilenceMicroseconds: Int64
    public private(set) var latched: RTPEndpoint?
    private var lastHeardMicroseconds: Int64 = 0

    public init(silenceMicroseconds: Int64, sameHostSilenceMicroseconds: Int64 = 500_000) {
        self.silenceMicroseconds = silenceMicroseconds
        self.sameHostSilenceMicroseconds = min(silenceMicroseconds, sameHostSilenceMicroseconds)
    }

    public mutating func admit(_ sender: RTPEndpoint, nowMicroseconds: Int64) -> Verdict {
        guard let current = latched else {
            latched = sender
            lastHeardMicroseconds = nowMicroseconds
            return .accept
        }
        if sender == current {
            lastHeardMicroseconds = nowMicroseconds
            return .accept
        }
        let quiet = nowMicroseconds - lastHeardMicroseconds
        let needed = sender.address == current.address ? sameHostSilenceMicroseconds : silenceMicroseconds
        guard quiet >= needed else { return .refuse(latched: current) }
        latched = sender
        lastHeardMicroseconds = nowMicroseconds
        return .switched(from: current)
    }
}
