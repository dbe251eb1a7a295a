/// A sender report's timing (RFC 3550 §6.4.1): the sender's wall clock and RTP clock at one
/// instant, which is what lines a participant's audio up with its video.
public struct RTCPSenderReport: Sendable, Equatable {
    public var ssrc: UInt32
    /// 64-bit NTP time: seconds since 1900 in the high half, the fraction of a second in the low.
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32

    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32) {
        self.ssrc = ssrc; self.ntpTimestamp = ntpTimestamp; self.rtpTimestamp = rtpTimestamp
    }

    /// NTP time in µs since 1900: seconds × 10⁶ + (fraction × 10⁶) >> 32. 2³² s × 10⁶ and
    /// 2³² × 10⁶ both fit in 63 bits, so neither product can overflow.
    public var ntpMicroseconds: Int64 {
        let seconds = Int64(ntpTimestamp >> 32)
        let fraction = Int64(((ntpTimestamp & 0xFFFF_FFFF) * 1_000_000) >> 32)
        return seconds * 1_000_000 + fraction
    }
}

/// The parts of a compound RTCP datagram Tessera acts on: sender reports (for A/V sync) and
/// BYE (a sender leaving). Receiver reports, SDES and feedback are walked over and skipped.
public struct RTCPCompound: Sendable, Equatable {
    public var senderReports: [RTCPSenderReport]
    /// SSRCs named by BYE packets.
    public var goodbyeSSRCs: [UInt32]

    public init(senderReports: [RTCPSenderReport] = [], goodbyeSSRCs: [UInt32] = []) {
        self.senderReports = senderReports; self.goodbyeSSRCs = goodbyeSSRCs
    }

    private static let senderReportType: UInt8 = 200
    private static let receiverReportType: UInt8 = 201
    private static let goodbyeType: UInt8 = 203

    public static func parse(_ bytes: [UInt8]) -> RTCPCompound? {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Walks a compound RTCP datagram; nil when any packet's version isn't 2, a length runs past
    /// the end, or the first packet is not SR/RR (RFC 3550 §6.1 validity). Never reads out of bounds.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> RTCPCompound? {
        guard bytes.count >= 4, [senderReportType, receiverReportType].contains(bytes[1]) else { return nil }
        var compound = RTCPCompound()
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count, bytes[offset] >> 6 == 2 else { return nil }
            let count = Int(bytes[offset] & 0x1F)
            let packetType = bytes[offset + 1]
            // The length field counts 32-bit words after the first, so every packet is ≥ 4 bytes
            // and the walk always advances.
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            let packet = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
            switch packetType {
            case senderReportType:
                // Header, SSRC, then the sender info: NTP (8 bytes) and RTP (4) timestamps, packet
                // and octet counts (4 + 4).
                guard packet.count >= 28 else { return nil }
                compound.senderReports.append(RTCPSenderReport(
                    ssrc: UInt32(bigEndianAt: 4, in: packet),
                    ntpTimestamp: UInt64(UInt32(bigEndianAt: 8, in: packet)) << 32 | UInt64(UInt32(bigEndianAt: 12, in: packet)),
                    rtpTimestamp: UInt32(bigEndianAt: 16, in: packet)))
            case goodbyeType:
                guard 4 + 4 * count <= packet.count else { return nil }
                compound.goodbyeSSRCs += (0..<count).map { UInt32(bigEndianAt: 4 + 4 * $0, in: packet) }
            default:
                break
            }
            offset += length
        }
        return compound
    }
}

extension UInt32 {
    /// Reads four bytes the caller has already checked are inside `bytes`.
    init(bigEndianAt offset: Int, in bytes: UnsafeRawBufferPointer) {
        self = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
