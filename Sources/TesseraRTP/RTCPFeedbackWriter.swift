/// One reception report block (RFC 3550 §6.4.1): what a receiver says about one sender's stream.
public struct RTCPReportBlock: Sendable, Equatable {
    /// The sender this block is about.
    public var ssrc: UInt32
    /// Lost since the previous report, as a fixed-point fraction of 256.
    public var fractionLost: UInt8
    /// Lost since the start, clamped to the field's signed 24 bits (negative with duplicates).
    public var cumulativeLost: Int32
    /// The highest sequence number received, extended with its count of wrap-arounds.
    public var highestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP time of the sender's latest SR; 0 before any.
    public var lastSenderReport: UInt32
    /// Time since that SR arrived, in 1/65536 s; 0 before any.
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, highestSequence: UInt32, jitter: UInt32,
                lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc; self.fractionLost = fractionLost; self.cumulativeLost = cumulativeLost
        self.highestSequence = highestSequence; self.jitter = jitter; self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }
}

/// The RTCP packets Tessera sends as a receiver: reports (RFC 3550), and the feedback that asks a
/// sender for a keyframe or a retransmission (RFC 4585 PLI and generic NACK, RFC 5104 FIR).
///
/// Each function returns one RTCP packet; a datagram is a compound of them, starting with a
/// report and carrying an SDES CNAME (RFC 3550 §6.1), which `compound` assembles.
public enum RTCPFeedbackWriter {
    static let receiverReportType: UInt8 = 201
    static let sourceDescriptionType: UInt8 = 202
    /// Transport-layer feedback (RFC 4585 §6.2): generic NACK is format 1.
    static let transportFeedbackType: UInt8 = 205
    /// Payload-specific feedback (RFC 4585 §6.3): PLI is format 1, FIR (RFC 5104 §4.3.1) format 4.
    static let payloadFeedbackType: UInt8 = 206

    /// A receiver report from `senderSSRC` (the receiver's own SSRC) with up to 31 blocks.
    public static func receiverReport(senderSSRC: UInt32, blocks: [RTCPReportBlock]) -> [UInt8] {
        let blocks = blocks.prefix(31)
        var bytes = header(count: UInt8(blocks.count), type: receiverReportType, words: 1 + 6 * blocks.count)
        bytes.appendBigEndian(senderSSRC)
        for block in blocks {
            bytes.appendBigEndian(block.ssrc)
            let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, block.cumulativeLost))) & 0xFF_FFFF
            bytes.appendBigEndian(UInt32(block.fractionLost) << 24 | lost)
            bytes.appendBigEndian(block.highestSequence)
            bytes.appendBigEndian(block.jitter)
            bytes.appendBigEndian(block.lastSenderReport)
            bytes.appendBigEndian(block.delaySinceLastSenderReport)
        }
        return bytes
    }

    /// SDES with one chunk: `ssrc`'s CNAME (at most 255 bytes of UTF-8), ended and padded to a word.
    public static func sourceDescription(ssrc: UInt32, cname: String) -> [UInt8] {
        let name = Array(cname.utf8.prefix(255))
        // SSRC, CNAME item (type, length, text), at least one zero byte ending the list, to a word.
        let chunkBytes = 4 + 2 + name.count
        let padded = (chunkBytes + 1 + 3) / 4 * 4
        var bytes = header(count: 1, type: sourceDescriptionType, words: padded / 4)
        bytes.appendBigEndian(ssrc)
        bytes += [1, UInt8(name.count)] + name
        bytes += [UInt8](repeating: 0, count: padded - chunkBytes)
        return bytes
    }

    /// Picture loss indication: "decode from the next keyframe", RFC 4585 §6.3.1.
    public static func pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32) -> [UInt8] {
        var bytes = header(count: 1, type: payloadFeedbackType, words: 2)
        bytes.appendBigEndian(senderSSRC)
        bytes.appendBigEndian(mediaSSRC)
        return bytes
    }

    /// Full intra request, RFC 5104 §4.3.1: the media source field is zero and the FCI names the
    /// sender with a command sequence number, which a repeat of the same request keeps.
    public static func fullIntraRequest(senderSSRC: UInt32, mediaSSRC: UInt32, sequenceNumber: UInt8) -> [UInt8] {
        var bytes = header(count: 4, type: payloadFeedbackType, words: 4)
        bytes.appendBigEndian(senderSSRC)
        bytes.appendBigEndian(0)
        bytes.appendBigEndian(mediaSSRC)
        bytes += [sequenceNumber, 0, 0, 0]
        return bytes
    }

    /// Generic NACK, RFC 4585 §6.2.1: each FCI names one lost packet (PID) and a bitmask of the 16
    /// after it (BLP); `lost` in any order, duplicates ignored. Nil when `lost` is empty.
    public static func genericNACK(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16]) -> [UInt8]? {
        let entries = nackEntries(lost)
        guard !entries.isEmpty else { return nil }
        var bytes = header(count: 1, type: transportFeedbackType, words: 2 + entries.count)
        bytes.appendBigEndian(senderSSRC)
        bytes.appendBigEndian(mediaSSRC)
        for entry in entries { bytes.appendBigEndian(UInt32(entry.pid) << 16 | UInt32(entry.bitmask)) }
        return bytes
    }

    /// Packs sequence numbers into (PID, BLP) pairs, in sequence order across wrap-around: the
    /// numbers are sorted by their signed distance from the first, so 65535 comes before 0.
    static func nackEntries(_ lost: [UInt16]) -> [(pid: UInt16, bitmask: UInt16)] {
        guard let first = lost.first else { return [] }
        let ordered = Set(lost).sorted { Int16(bitPattern: $0 &- first) < Int16(bitPattern: $1 &- first) }
        var entries: [(pid: UInt16, bitmask: UInt16)] = []
        for sequence in ordered {
            if let last = entries.last, case let distance = sequence &- last.pid, (1...16).contains(distance) {
                entries[entries.count - 1].bitmask |= 1 << (distance - 1)
            } else {
                entries.append((sequence, 0))
            }
        }
        return entries
    }

    /// RTCP's common header: version 2, no padding, the count / format field, type, and the
    /// length in 32-bit words after the first.
    private static func header(count: UInt8, type: UInt8, words: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | (count & 0x1F), type]
        bytes.reserveCapacity(4 * (words + 1))
        bytes += [UInt8(words >> 8 & 0xFF), UInt8(words & 0xFF)]
        return bytes
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
