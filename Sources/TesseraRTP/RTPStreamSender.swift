/// One outgoing RTP stream (one SSRC): payloads in, datagrams out (RFC 3550 §5.1).
///
/// Numbers sequence and timestamps from the given starting points (random, as RFC 3550 §5.1
/// asks, chosen by the caller so this stays deterministic) and keeps the counts a sender report
/// needs. Headers are the plain 12 bytes: version 2, no padding, extension or CSRCs.
public struct RTPStreamSender: Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    /// RTP clock ticks per second (90 000 for video, 48 000 for Opus); media times are in these units.
    public let clockRate: Int
    public let timestampOffset: UInt32
    /// The sequence number the next packet gets; wraps from 65535 to 0.
    public private(set) var nextSequenceNumber: UInt16
    /// Packets sent since the start, modulo 2³² (RFC 3550 §6.4.1's sender's packet count).
    public private(set) var packetCount: UInt32 = 0
    /// Payload octets sent since the start, headers and padding not counted, modulo 2³².
    public private(set) var octetCount: UInt32 = 0

    public init(ssrc: UInt32, payloadType: UInt8, clockRate: Int, initialSequence: UInt16, timestampOffset: UInt32) {
        self.ssrc = ssrc; self.payloadType = payloadType & 0x7F; self.clockRate = clockRate
        nextSequenceNumber = initialSequence; self.timestampOffset = timestampOffset
    }

    /// The RTP timestamp of `mediaTime` (in clock-rate units): the offset plus the time, modulo
    /// 2³², so the stream's timestamps wrap as RTP's do.
    public func rtpTimestamp(mediaTime: Int64) -> UInt32 {
        timestampOffset &+ UInt32(truncatingIfNeeded: mediaTime)
    }

    /// Datagrams for one frame's payloads, all with its timestamp. `marker`: set the marker bit
    /// on the last one (video: the frame's last packet; audio: false, or true after a silence).
    public mutating func packets(payloads: [[UInt8]], mediaTime: Int64, marker: Bool) -> [[UInt8]] {
        let timestamp = rtpTimestamp(mediaTime: mediaTime)
        return payloads.enumerated().map { index, payload in
            let markerBit: UInt8 = marker && index == payloads.count - 1 ? 0x80 : 0
            var datagram: [UInt8] = [0x80, markerBit | payloadType,
                                     UInt8(nextSequenceNumber >> 8), UInt8(nextSequenceNumber & 0xFF)]
            datagram.reserveCapacity(12 + payload.count)
            datagram.appendBigEndian(timestamp)
            datagram.appendBigEndian(ssrc)
            datagram += payload
            nextSequenceNumber &+= 1
            packetCount &+= 1
            octetCount &+= UInt32(truncatingIfNeeded: payload.count)
            return datagram
        }
    }
}
