import Testing
import TesseraRTP

@Suite struct SessionDescriptionTests {
    /// What a typical SFU forward looks like: several formats, rtcp attributes, an extra section.
    static let forwarded = """
        v=0
        o=- 4611731400430051336 2 IN IP4 127.0.0.1
        s=participant 7
        c=IN IP4 10.0.0.5
        t=0 0
        m=audio 5006 RTP/AVP 111 0 101
        a=rtpmap:111 opus/48000/2
        a=fmtp:111 minptime=10; useinbandfec=1
        a=rtpmap:101 telephone-event/8000
        a=rtcp:5100 IN IP4 10.0.0.5
        m=video 5004 RTP/AVPF 45 96 97
        c=IN IP4 10.0.0.9/127
        a=rtpmap:45 AV1/90000
        a=rtpmap:96 H264/90000
        a=fmtp:96 Packetization-Mode=1;profile-level-id=42e01f;sprop-parameter-sets=Z0LgH9oBQBbpUgAAAwA=,aM4xUg==
        a=rtpmap:97 VP8/90000
        a=rtcp-mux
        m=application 5010 UDP/DTLS/SCTP webrtc-datachannel
        """

    @Test func readsAForwardedOffer() throws {
        let session = try SessionDescription.parse(Self.forwarded)
        #expect(session.video == RTPMediaDescription(
            kind: .video, port: 5004, rtcpPort: 5004, rtcpMux: true, payloadType: 96, codec: .h264, clockRate: 90000,
            channels: 1,
            formatParameters: ["packetization-mode": "1", "profile-level-id": "42e01f",
                               "sprop-parameter-sets": "Z0LgH9oBQBbpUgAAAwA=,aM4xUg=="],
            address: "10.0.0.9"))
        #expect(session.audio == RTPMediaDescription(
            kind: .audio, port: 5006, rtcpPort: 5100, rtcpMux: false, payloadType: 111, codec: .opus, clockRate: 48000,
            channels: 2, formatParameters: ["minptime": "10", "useinbandfec": "1"], address: "10.0.0.5"))
    }

    @Test func crlfAndTrailingWhitespaceAreTheSame() throws {
        let crlf = Self.forwarded.split(separator: "\n").map { $0 + "  \t" }.joined(separator: "\r\n")
        #expect(try SessionDescription.parse(crlf) == SessionDescription.parse(Self.forwarded))
    }

    @Test func staticPayloadTypesNeedNoRtpmap() throws {
        let pcmu = try #require(try SessionDescription.parse("v=0\nm=audio 7000 RTP/AVP 0\n").audio)
        #expect(pcmu.codec == .pcmu && pcmu.clockRate == 8000 && pcmu.channels == 1 && pcmu.rtcpPort == 7001)
        #expect(pcmu.address == nil)
        let pcma = try #require(try SessionDescription.parse("m=audio 7000 UDP/RTP/AVP 8").audio)
        #expect(pcma.codec == .pcma && pcma.payloadType == 8)
    }

    @Test func onlyTheFirstEnabledSectionOfEachKindCounts() throws {
        let sdp = """
            m=video 0 RTP/AVP 96
            a=rtpmap:96 H264/90000
            m=video 6000 RTP/AVP 98
            a=rtpmap:98 vp9/90000
            m=video 6100 RTP/AVP 96
            a=rtpmap:96 H264/90000
            """
        let session = try SessionDescription.parse(sdp)
        #expect(session.video?.codec == .vp9 && session.video?.port == 6000)
        #expect(session.audio == nil)
    }

    @Test func aacNeedsItsConfiguration() throws {
        let good = """
            m=audio 5008 RTP/AVP 100
            a=rtpmap:100 MPEG4-GENERIC/44100/2
            a=fmtp:100 streamtype=5; mode=AAC-hbr; SizeLength=13; config=1210
            """
        let aac = try #require(try SessionDescription.parse(good).audio)
        #expect(aac.codec == .aac && aac.clockRate == 44100 && aac.formatParameters["config"] == "1210")
        #expect(aac.formatParameters["sizelength"] == "13")
    }

    @Test func readsFeedbackRetransmissionAndKeys() throws {
        let sdp = """
            m=video 5004 RTP/SAVPF 99 100 97
            a=rtpmap:99 H264/90000
            a=fmtp:99 packetization-mode=1
            a=rtpmap:100 rtx/90000
            a=fmtp:100 apt=99
            a=rtpmap:97 VP8/90000
            a=rtcp-fb:99 nack
            a=rtcp-fb:99  NACK  PLI
            a=rtcp-fb:* ccm fir
            a=rtcp-fb:97 goog-remb
            a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz
            m=audio 5006 RTP/AVP 96
            a=rtpmap:96 opus/48000/2
            """
        let session = try SessionDescription.parse(sdp)
        let video = try #require(session.video)
        #expect(video.payloadType == 99 && video.rtxPayloadType == 100)
        #expect(video.feedback == [.nack, .pli, .fir])
        #expect(video.srtp?.suite == .aesCM128HMACSHA1_80)
        #expect(video.srtp?.base64Key == "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz")
        let audio = try #require(session.audio)
        #expect(audio.payloadType == 96 && audio.rtxPayloadType == nil && audio.feedback == [] && audio.srtp == nil)
    }

    static let refusals: [(sdp: String, expected: String)] = [
        ("m=video 5004 RTP/SAVPF 96\na=rtpmap:96 VP8/90000", "m=video line 1: RTP/SAVPF needs an a=crypto line with the SRTP key"),
        ("m=video 5004 UDP/TLS/RTP/SAVPF 96\na=rtpmap:96 VP8/90000", "m=video line 1: transport \"UDP/TLS/RTP/SAVPF\" is not supported (DTLS-SRTP"),
        ("m=video 5004 RTP/SAVP 96\na=rtpmap:96 VP8/90000\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:QUJD",
         "a=crypto line 3: no usable a=crypto attribute: key must be 30 bytes"),
        ("m=video 5004 RTP/AVP 96\na=rtpmap:96 VP8/90000\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:x",
         "a=crypto line 3: no usable a=crypto attribute"),
        ("v=0\nc=IN IP4 1.2.3.4\nm=audio 5006 RTP/AVP 0\nm=video abc RTP/AVP 96", "m=video line 4: port \"abc\" is not a number"),
        ("m=video 70000 RTP/AVP 96", "m=video line 1: port 70000 is out of range"),
        ("m=video 5004 TCP/RTP/AVP 96", "m=video line 1: transport \"TCP/RTP/AVP\" is not supported"),
        ("m=video 5004 RTP/AVP 96\na=rtpmap:96 H265/90000", #"no supported media: video "H265" is not supported (use H264, VP8 or VP9)"#),
        ("m=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\nm=audio 5006 RTP/AVP 9 96\na=rtpmap:96 H264/90000",
         "no error"),
        ("m=audio 5006 RTP/AVP 9 96\na=rtpmap:96 H264/90000",
         #"no supported media: audio payload type 9 (no a=rtpmap), "H264" are not supported (use opus, mpeg4-generic, PCMU or PCMA)"#),
        ("m=video 0 RTP/AVP 96", "no supported media: video section is disabled (port 0)"),
        ("v=0\ns=nothing", "no supported media: no m=video or m=audio section"),
        ("m=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=2",
         "a=fmtp line 3: H264 packetization-mode 2 (interleaved) is not supported"),
        ("m=audio 5006 RTP/AVP 100\na=rtpmap:100 mpeg4-generic/48000/2\na=fmtp:100 mode=AAC-hbr",
         "a=fmtp line 3: mpeg4-generic needs a hexadecimal config"),
        ("m=audio 5006 RTP/AVP 100\na=rtpmap:100 mpeg4-generic/48000/2", "m=audio line 1: mpeg4-generic needs a hexadecimal config"),
        ("m=audio 5006 RTP/AVP 100\na=rtpmap:100 mpeg4-generic/48000\na=fmtp:100 config=1190",
         "a=fmtp line 3: mpeg4-generic needs mode=AAC-hbr"),
        ("m=audio 5006 RTP/AVP 111\na=rtpmap:111 opus/fast/2", "a=rtpmap line 2: clock rate \"fast\" is not a number from 1 to 1000000"),
        ("m=audio 5006 RTP/AVP 0\na=rtpmap:0 PCMU/4294967296", "a=rtpmap line 2: clock rate \"4294967296\" is not a number from 1 to 1000000"),
        ("m=audio 5006 RTP/AVP 111\na=rtpmap:300 opus/48000", "a=rtpmap line 2: payload type \"300\""),
        ("m=audio 5006 RTP/AVP x", "m=audio line 1: format \"x\" is not an RTP payload type"),
        ("m=audio 5006 RTP/AVP 0\na=rtcp:port", "a=rtcp line 2: port \"port\" is not a number"),
        ("m=audio 65535 RTP/AVP 0", "m=audio line 1: port 65535 leaves no port above it for RTCP"),
        ("m=video 5004 RTP/AVP 97\na=rtpmap:97 VP8/90000\nm=audio 5005 RTP/AVP 0",
         "m=audio line 3: RTP/RTCP ports 5005/5006 collide with m=video line 1 (5004/5005)"),
        ("m=video 5004 RTP/AVP 97\na=rtpmap:97 VP8/90000\na=rtcp:6000\nm=audio 6000 RTP/AVP 0\na=rtcp-mux",
         "m=audio line 4: RTP/RTCP ports 6000/6000 collide with m=video line 1 (5004/6000)"),
        ("hello", "line 1: \"hello\" is not an SDP line"),
        ("c=IN\nm=audio 5006 RTP/AVP 0", "c= line 1: expected \"c=IN IP4 <address>\""),
    ]

    @Test(arguments: refusals)
    func refusesWithTheReason(sdp: String, expected: String) {
        let message: String
        do {
            _ = try SessionDescription.parse(sdp)
            message = "no error"
        } catch {
            message = error.description
        }
        #expect(message.hasPrefix(expected), "got: \(message)")
    }

    @Test func refusesTextOverTheLimit() {
        let huge = "m=audio 5006 RTP/AVP 0\n" + String(repeating: "a=x\n", count: 16 * 1024 + 1)
        #expect(throws: SessionDescription.Invalid.self) { try SessionDescription.parse(huge) }
    }

    @Test(arguments: RTPCodec.allCases)
    func whatMakeWritesParsesBack(codec: RTPCodec) throws {
        let stream = (codec: codec, port: 40000)
        let other = codec.kind == .video ? (codec: RTPCodec.opus, port: 40002) : (codec: RTPCodec.vp8, port: 40002)
        let (video, audio) = codec.kind == .video ? (stream, other) : (other, stream)
        let text = SessionDescription.make(address: "192.0.2.1", sessionName: "room\r\na=evil", video: video, audio: audio)
        #expect(text.hasPrefix("v=0\r\no=- 0 0 IN IP4 192.0.2.1\r\ns=rooma=evil\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\n"))
        let bytes = Array(text.utf8)
        let lineEnds = bytes.indices.filter { bytes[$0] == 10 }
        #expect(bytes.last == 10 && lineEnds.allSatisfy { $0 > 0 && bytes[$0 - 1] == 13 })
        #expect(bytes.filter { $0 == 13 }.count == lineEnds.count)
        let session = try SessionDescription.parse(text)
        #expect(session.video?.codec == video.codec && session.video?.port == video.port && session.video?.rtcpPort == video.port + 1)
        #expect(session.audio?.codec == audio.codec && session.audio?.port == audio.port && session.audio?.rtcpPort == audio.port + 1)
        #expect(session.video?.address == "192.0.2.1")
    }

    @Test func makeWritesTheAgreedLines() {
        let text = SessionDescription.make(address: "10.1.1.1", sessionName: "t", video: (.h264, 30000), audio: (.aac, 30002))
        #expect(text == [
            "v=0", "o=- 0 0 IN IP4 10.1.1.1", "s=t", "c=IN IP4 10.1.1.1", "t=0 0",
            "m=video 30000 RTP/AVPF 96", "a=rtpmap:96 H264/90000", "a=fmtp:96 packetization-mode=1",
            "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 ccm fir", "a=rtcp:30001",
            "m=audio 30002 RTP/AVP 100", "a=rtpmap:100 mpeg4-generic/48000/2",
            "a=fmtp:100 streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190",
            "a=rtcp:30003",
        ].map { $0 + "\r\n" }.joined())
        let audioOnly = SessionDescription.make(address: "10.1.1.1", sessionName: "", video: nil, audio: (.pcma, 30002))
        #expect(audioOnly.contains("s=-\r\n") && audioOnly.contains("m=audio 30002 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n"))
        #expect(!audioOnly.contains("m=video"))
    }
}
