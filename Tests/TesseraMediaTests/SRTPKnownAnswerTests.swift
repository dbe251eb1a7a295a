import Testing
import TesseraRTP
import TesseraMedia

/// Packets protected by FFmpeg's SRTP code (libavformat/srtp.c, the vectors of FFmpeg's `fate-srtp`
/// test and their decryptions), unprotected by libsrtp: an answer fixed outside libsrtp that
/// needs no `ffmpeg` binary.
@Suite struct SRTPKnownAnswerTests {
    static let key = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
    /// V=2, marker, payload type 96, sequence 0x1234, SSRC 0x12345678, five payload bytes.
    static let rtp: [UInt8] = [0x80, 0xE0, 0x12, 0x34, 0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78,
                               0x01, 0x02, 0x03, 0x04, 0x05]
    /// A receiver report from SSRC 0x12345678 about 0x87654321.
    static let rtcp: [UInt8] = [0x81, 0xC9, 0x00, 0x07, 0x12, 0x34, 0x56, 0x78, 0x87, 0x65, 0x43, 0x21,
                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x06, 0x9E,
                                0xC7, 0x30, 0x69, 0xBA, 0x00, 0x00, 0x01, 0xFD]
    static let encryptedRTPPayload: [UInt8] = [0x62, 0x69, 0x76, 0xCA, 0xC5]
    static let rtpTag80: [UInt8] = [0xA1, 0xAC, 0x1B, 0xB4, 0xA0, 0x1C, 0xD5, 0x49, 0x28, 0x99]

    static func session(_ suite: SRTPSuite) throws -> SRTPSession {
        try SRTPSession(keying: SRTPKeying(suite: suite, base64Key: key), direction: .inbound)
    }

    @Test func aes128HMAC80() throws {
        let receiver = try Self.session(.aesCM128HMACSHA1_80)
        let srtp = Array(Self.rtp[..<12]) + Self.encryptedRTPPayload + Self.rtpTag80
        #expect(try SRTPTestPackets.apply(srtp, receiver.unprotectRTP).get() == Self.rtp)
        let srtcp = Array(Self.rtcp[..<8]) + [
            0x8A, 0xAC, 0xDC, 0xA5, 0x4C, 0xF6, 0x78, 0xA6, 0x62, 0x8F, 0x24, 0xDA,
            0x6C, 0x09, 0x3F, 0xA9, 0x28, 0x7A, 0xB5, 0x7F, 0x1F, 0x0F, 0xC9, 0x35,
            0x80, 0x00, 0x00, 0x03,  // E flag, SRTCP index 3
            0xE9, 0x3B, 0xC0, 0x5C, 0x0C, 0x06, 0x9F, 0xAB, 0xC0, 0xDE,
        ]
        #expect(try SRTPTestPackets.apply(srtcp, receiver.unprotectRTCP).get() == Self.rtcp)
    }

    /// The 32-bit tag is the 80-bit one cut short (the same HMAC); FFmpeg's SRTCP with this
    /// suite has a 32-bit tag too, which SRTPSession takes beside RFC 5764's 80-bit one.
    @Test func aes128HMAC32() throws {
        let receiver = try Self.session(.aesCM128HMACSHA1_32)
        let srtp = Array(Self.rtp[..<12]) + Self.encryptedRTPPayload + Self.rtpTag80.prefix(4)
        #expect(try SRTPTestPackets.apply(srtp, receiver.unprotectRTP).get() == Self.rtp)
        let srtcp = Array(Self.rtcp[..<8]) + [
            0x35, 0xE9, 0xB5, 0xFF, 0x0D, 0xD1, 0xDE, 0x70, 0x74, 0x10, 0xAA, 0x1B,
            0xB2, 0x8D, 0xF0, 0x20, 0x02, 0x99, 0x6B, 0x1B, 0x0B, 0xD0, 0x47, 0x34,
            0x80, 0x00, 0x00, 0x04,  // E flag, SRTCP index 4
            0x5B, 0xD2, 0xA9, 0x9D,
        ]
        #expect(try SRTPTestPackets.apply(srtcp, receiver.unprotectRTCP).get() == Self.rtcp)
        // Now known to send short SRTCP tags, the sender's errors are read that way: a copy of
        // index 4 is a replay (libsrtp checks the index before the tag), where read with an 80-bit
        // tag its E flag would be looked for in the tag.
        var forged = srtcp
        forged[forged.count - 1] ^= 1
        #expect(SRTPTestPackets.apply(forged, receiver.unprotectRTCP) == .failure(.replayed))
    }
}
