import Foundation
import Testing
import TesseraRTP
import TesseraMedia

/// A known answer from outside libsrtp: the `ffmpeg` CLI protects with its own SRTP code
/// (libavformat/srtp.c), so packets it sends must unprotect with an SRTPSession keyed the same.
/// FFmpeg has no AEAD_AES_128_GCM; that suite is checked by round trip only (SRTPSessionTests).
@Suite struct SRTPFFmpegCrossCheckTests {
    static let ssrc: UInt32 = 0x5E55_1011
    static let payloadType: UInt8 = 111

    @Test(arguments: [SRTPSuite.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32])
    func ffmpegPacketsUnprotect(suite: SRTPSuite) throws {
        let key = (0..<suite.masterKeyAndSaltLength).map { _ in UInt8.random(in: 0...255) }
        let keying = try SRTPKeying(suite: suite, masterKeyAndSalt: key)
        let (rtpSocket, rtcpSocket) = try LoopbackUDP.rtpPair()
        try Self.runFFmpeg(keying, port: rtpSocket.port)

        let datagrams = rtpSocket.receiveAll(quietMilliseconds: 0)
        #expect(datagrams.count >= 5, "ffmpeg sent \(datagrams.count) RTP packets")
        let receiver = try SRTPSession(keying: keying, direction: .inbound)
        var sequences: [UInt16] = []
        for datagram in datagrams {
            let plain = try SRTPTestPackets.apply(datagram, receiver.unprotectRTP).get()
            #expect(plain.count == datagram.count - suite.rtpTagLength)
            let packet = try RTPPacket.parse(plain).get()
            #expect(plain[0] >> 6 == 2)
            #expect(packet.payloadType == Self.payloadType && packet.ssrc == Self.ssrc && !packet.payload.isEmpty)
            sequences.append(packet.sequenceNumber)
        }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "in order: \(sequences)")

        // ffmpeg's RTP muxer sends a sender report with its first packet. Its SRTCP tag is as long
        // as its SRTP tag, 32 bits with the _32 suite where RFC 5764 says 80: SRTPSession takes
        // both.
        let reports = rtcpSocket.receiveAll(quietMilliseconds: 0)
        #expect(!reports.isEmpty, "ffmpeg sent no RTCP")
        for datagram in reports {
            let plain = try SRTPTestPackets.apply(datagram, receiver.unprotectRTCP).get()
            #expect(plain.count == datagram.count - 4 - suite.rtpTagLength)
            let compound = try #require(RTCPCompound.parse(plain))
            #expect(compound.senderReports.allSatisfy { $0.ssrc == Self.ssrc })
        }
    }

    /// 0.2 s of a sine in Opus (10 packets of 20 ms), sent in real time to 127.0.0.1:`port`.
    static func runFFmpeg(_ keying: SRTPKeying, port: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin",
            "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=0.2",
            "-c:a", "libopus", "-payload_type", String(payloadType), "-ssrc", String(Int32(bitPattern: ssrc)),
            "-f", "rtp", "-srtp_out_suite", keying.suite.rawValue, "-srtp_out_params", keying.base64Key,
            "srtp://127.0.0.1:\(port)",
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "ffmpeg: \(message)")
    }
}
