/// One FIR entry (RFC 5104 §4.3.1.1): the SSRC asked for a keyframe and the command sequence
/// number, which a repeat of the same request keeps and a new request increments.
public struct RTCPFullIntraRequest: Sendable, Equatable {
    public var ssrc: UInt32
    public var sequenceNumber: UInt8

    public init(ssrc: UInt32, sequenceNumber: UInt8) {
        self.ssrc = ssrc; self.sequenceNumber = sequenceNumber
    }
}

/// One generic NACK packet (RFC 4585 §6.2.1): the stream it is about and the sequence numbers
/// asked for, its (PID, BLP) pairs expanded.
public struct RTCPGenericNACK: Sendable, Equatable {
    public var mediaSSRC: UInt32
    public var sequenceNumbers: [UInt16]

    public init(mediaSSRC: UInt32, sequenceNumbers: [UInt16]) {
        self.mediaSSRC = mediaSSRC; self.sequenceNumbers = sequenceNumbers
    }
}

/// What a receiver (an SFU) says back to a sender: reception reports, keyframe requests (PLI,
/// FIR), retransmission requests (generic NACK) and BYE, read from one RTCP datagram.
///
/// Accepts compound datagrams (RFC 3550 §6.1) and reduced-size ones (RFC 5506: a lone PLI with no
/// report first, as browsers and SFUs send). SDES, APP, XR, REMB, transport-wide CC and unknown
/// types are walked over. Lengths are never trusted: a datagram whose version is not 2, whose
/// lengths or counts run past the end, or whose padding does not fit is refused whole.
public struct RTCPSenderFeedback: Sendable, Equatable {
    /// Every report block of every SR and RR, whichever stream it is about.
    public var reportBlocks: [RTCPReportBlock]
    /// The media SSRC of each PLI.
    public var pictureLossSSRCs: [UInt32]
    public var fullIntraRequests: [RTCPFullIntraRequest]
    /// Each generic NACK packet, with the stream it names.
    public var nacks: [RTCPGenericNACK]
    /// Whether the datagram holds a BYE.
    public var goodbye: Bool

    public init(reportBlocks: [RTCPReportBlock] = [], pictureLossSSRCs: [UInt32] = [],
                fullIntraRequests: [RTCPFullIntraRequest] = [], nacks: [RTCPGenericNACK] = [], goodbye: Bool = false) {
        self.reportBlocks = reportBlocks; self.pictureLossSSRCs = pictureLossSSRCs
        self.fullIntraRequests = fullIntraRequests; self.nacks = nacks; self.goodbye = goodbye
    }

    /// Every sequence number asked for, whichever stream it names, in the order asked.
    public var nackedSequenceNumbers: [UInt16] { nacks.flatMap(\.sequenceNumbers) }

    /// The sequence numbers of `ssrc`'s packets asked for.
    public func nackedSequenceNumbers(ssrc: UInt32) -> [UInt16] {
        nacks.filter { $0.mediaSSRC == ssrc }.flatMap(\.sequenceNumbers)
    }

    static let senderReportType: UInt8 = 200
    static let receiverReportType: UInt8 = 201
    static let goodbyeType: UInt8 = 203
    static let transportFeedbackType: UInt8 = 205
    static let payloadFeedbackType: UInt8 = 206

    public static func parse(_ bytes: [UInt8]) -> RTCPSenderFeedback? {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Nil when the datagram is not valid RTCP (see the type's note); the first packet must have an
    /// RTCP type (192–223, RFC 5761 §4), so an RTP packet on a muxed port is not taken for one.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> RTCPSenderFeedback? {
        guard bytes.count >= 4, (192...223).contains(bytes[1]) else { return nil }
        var feedback = RTCPSenderFeedback()
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count, bytes[offset] >> 6 == 2 else { return nil }
            // The length counts 32-bit words after the first, so every packet is ≥ 4 bytes and the
            // walk always advances.
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            var packet = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
            if packet[0] & 0x20 != 0 {
                // Padding: its last byte counts the padding bytes, itself included.
                let padding = Int(packet[length - 1])
                guard padding > 0, padding <= length - 4 else { return nil }
                packet = UnsafeRawBufferPointer(rebasing: packet[..<(length - padding)])
            }
            guard feedback.read(packet) else { return nil }
            offset += length
        }
        return feedback
    }

    /// Reads one packet (padding removed); false when it is malformed.
    private mutating func read(_ packet: UnsafeRawBufferPointer) -> Bool {
        let count = Int(packet[0] & 0x1F)
        switch packet[1] {
        case Self.senderReportType:
            // Header, SSRC, sender info (NTP 8, RTP 4, packet and octet counts 4 + 4), blocks.
            return readReportBlocks(packet, from: 28, count: count)
        case Self.receiverReportType:
            return readReportBlocks(packet, from: 8, count: count)
        case Self.goodbyeType:
            guard 4 + 4 * count <= packet.count else { return false }
            goodbye = true
        case Self.payloadFeedbackType:
            // Header, sender SSRC, media SSRC, then the feedback control information.
            guard packet.count >= 12 else { return false }
            switch count {
            case 1:
                pictureLossSSRCs.append(UInt32(bigEndianAt: 8, in: packet))
            case 4:
                // RFC 5104 §4.3.1.1: the media SSRC is unused; each 8-byte entry names a sender.
                guard (packet.count - 12) % 8 == 0 else { return false }
                for entry in stride(from: 12, to: packet.count, by: 8) {
                    fullIntraRequests.append(RTCPFullIntraRequest(ssrc: UInt32(bigEndianAt: entry, in: packet),
                                                                  sequenceNumber: packet[entry + 4]))
                }
            default:
                break  // SLI, RPSI, REMB (application layer feedback, 15), ...
            }
        case Self.transportFeedbackType:
            guard packet.count >= 12 else { return false }
            if count == 1 {
                guard (packet.count - 12) % 4 == 0 else { return false }  // padding may leave a part-word
                var lost: [UInt16] = []
                for entry in stride(from: 12, to: packet.count, by: 4) {
                    // PID, then BLP: bit i set means PID + i + 1 is lost too.
                    let pid = UInt16(packet[entry]) << 8 | UInt16(packet[entry + 1])
                    let bitmask = UInt16(packet[entry + 2]) << 8 | UInt16(packet[entry + 3])
                    lost.append(pid)
                    for bit in 0..<16 where bitmask & (1 << bit) != 0 { lost.append(pid &+ UInt16(bit + 1)) }
                }
                nacks.append(RTCPGenericNACK(mediaSSRC: UInt32(bigEndianAt: 8, in: packet), sequenceNumbers: lost))
            }
            // Other formats (TMMBR, TMMBN, transport-wide CC, ...) are not acted on.
        default:
            break  // SDES, APP, XR and types not yet assigned
        }
        return true
    }

    /// `count` blocks of 24 bytes from `start`; what follows them is profile-specific and skipped.
    private mutating func readReportBlocks(_ packet: UnsafeRawBufferPointer, from start: Int, count: Int) -> Bool {
        guard start + 24 * count <= packet.count else { return false }
        for index in 0..<count {
            let block = start + 24 * index
            let lossWord = UInt32(bigEndianAt: block + 4, in: packet)
            // Cumulative loss is a signed 24-bit field: shift it to the top and back to extend the sign.
            let cumulativeLost = Int32(bitPattern: lossWord << 8) >> 8
            reportBlocks.append(RTCPReportBlock(
                ssrc: UInt32(bigEndianAt: block, in: packet),
                fractionLost: UInt8(lossWord >> 24),
                cumulativeLost: cumulativeLost,
                highestSequence: UInt32(bigEndianAt: block + 8, in: packet),
                jitter: UInt32(bigEndianAt: block + 12, in: packet),
                lastSenderReport: UInt32(bigEndianAt: block + 16, in: packet),
                delaySinceLastSenderReport: UInt32(bigEndianAt: block + 20, in: packet)))
        }
        return true
    }
}
