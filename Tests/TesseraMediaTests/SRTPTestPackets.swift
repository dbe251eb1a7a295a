import TesseraRTP
import TesseraMedia

/// Plain RTP / RTCP packets and keys for the SRTP tests, and a way to run an in-place SRTP call
/// on a copy of a packet with the trailer room libsrtp asks for.
enum SRTPTestPackets {
    /// An RTP packet: version 2, payload type 111, then `payloadBytes` bytes counting up from
    /// the sequence number's low byte.
    static func rtp(ssrc: UInt32, sequence: UInt16, timestamp: UInt32 = 0, payloadBytes: Int = 40) -> [UInt8] {
        [0x80, 111] + bigEndian(sequence) + bigEndian(timestamp) + bigEndian(ssrc)
            + (0..<payloadBytes).map { UInt8(truncatingIfNeeded: Int(sequence) + $0) }
    }

    /// An RTCP receiver report from `ssrc` with one report block (RFC 3550 §6.4.2).
    static func receiverReport(ssrc: UInt32) -> [UInt8] {
        [0x81, 201, 0x00, 0x07] + bigEndian(ssrc) + bigEndian(UInt32(0xAABB_CCDD)) + [UInt8](repeating: 0x11, count: 20)
    }

    /// A key of the suite's length whose bytes start at `seed`.
    static func key(_ suite: SRTPSuite, seed: UInt8 = 1) -> [UInt8] {
        (0..<suite.masterKeyAndSaltLength).map { seed &+ UInt8($0) &* 7 }
    }

    /// `call` applied in place to a copy of `packet` that has `SRTPSession.rtcpTrailerRoom` spare
    /// bytes after it; the bytes of the result.
    static func apply(_ packet: [UInt8], _ call: (UnsafeMutableRawBufferPointer, Int) -> Result<Int, SRTPError>)
        -> Result<[UInt8], SRTPError> {
        var storage = packet + [UInt8](repeating: 0, count: SRTPSession.rtcpTrailerRoom)
        let result = storage.withUnsafeMutableBytes { call($0, packet.count) }
        return result.map { Array(storage[..<$0]) }
    }

    static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        (0..<Integer.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
