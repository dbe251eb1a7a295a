import Testing
import TesseraRTP

/// The SDP Tessera writes for an allocation says exactly what was asked (issue 20).
@Suite struct SessionDescriptionWriterTests {
    static let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd"

    static let negotiated = RTPAllocationRequest(
        video: .init(codec: .h264, payloadType: 99, clockRate: 90000, channels: 1,
                     fmtp: "packetization-mode=1;profile-level-id=42e01f", rtxPayloadType: 100),
        audio: .init(codec: .opus, payloadType: 96, clockRate: 48000, channels: 2, fmtp: nil),
        extensions: ["urn:ietf:params:rtp-hdrext:ssrc-audio-level": 1, "urn:3gpp:video-orientation": 3])

    static func lines(_ text: String) -> [String] {
        #expect(text.hasSuffix("\r\n"))
        return text.components(separatedBy: "\r\n").dropLast()
    }

    @Test func writesTheNegotiatedFormats() {
        let text = SessionDescription.make(address: "10.1.1.1", sessionName: "t", request: Self.negotiated,
                                           videoPort: 30000, audioPort: 30002)
        #expect(Self.lines(text) == [
            "v=0", "o=- 0 0 IN IP4 10.1.1.1", "s=t", "c=IN IP4 10.1.1.1", "t=0 0",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=extmap:3 urn:3gpp:video-orientation",
            "m=video 30000 RTP/AVPF 99 100", "a=rtpmap:99 H264/90000",
            "a=fmtp:99 packetization-mode=1;profile-level-id=42e01f",
            "a=rtcp-fb:99 nack", "a=rtcp-fb:99 nack pli", "a=rtcp-fb:99 ccm fir",
            "a=rtpmap:100 rtx/90000", "a=fmtp:100 apt=99", "a=rtcp:30001",
            "m=audio 30002 RTP/AVP 96", "a=rtpmap:96 opus/48000/2", "a=rtcp:30003",
        ])
    }

    @Test func rtcpMuxAndSRTP() {
        var request = Self.negotiated
        request.extensions = [:]
        request.rtcpMux = true
        request.srtp = SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: Self.key)
        let text = SessionDescription.make(address: "2001:db8::7", sessionName: "", request: request,
                                           videoPort: 30000, audioPort: 30001)
        #expect(Self.lines(text) == [
            "v=0", "o=- 0 0 IN IP6 2001:db8::7", "s=-", "c=IN IP6 2001:db8::7", "t=0 0",
            "m=video 30000 RTP/SAVPF 99 100", "a=rtpmap:99 H264/90000",
            "a=fmtp:99 packetization-mode=1;profile-level-id=42e01f",
            "a=rtcp-fb:99 nack", "a=rtcp-fb:99 nack pli", "a=rtcp-fb:99 ccm fir",
            "a=rtpmap:100 rtx/90000", "a=fmtp:100 apt=99", "a=rtcp-mux",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)",
            "m=audio 30001 RTP/SAVP 96", "a=rtpmap:96 opus/48000/2", "a=rtcp-mux",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)",
        ])
    }

    @Test func audioFormatsWriteTheirChannelsAndStaticTypes() {
        let stereoPCM = RTPAllocationRequest(audio: .init(codec: .pcmu, payloadType: 110, clockRate: 16000, channels: 2, fmtp: nil))
        #expect(SessionDescription.make(address: "10.1.1.1", sessionName: "t", request: stereoPCM, videoPort: nil, audioPort: 30002)
            .contains("m=audio 30002 RTP/AVP 110\r\na=rtpmap:110 PCMU/16000/2\r\na=rtcp:30003\r\n"))
        let g711 = RTPAllocationRequest(audio: .init(codec: .pcmu))
        let text = SessionDescription.make(address: "10.1.1.1", sessionName: "t", request: g711, videoPort: nil, audioPort: 30002)
        #expect(text.contains("m=audio 30002 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=rtcp:30003\r\n"))
        #expect(!text.contains("m=video") && !text.contains("rtcp-fb"))
    }

    /// Without SRTP, what the writer produces is read back by today's parser as written. (With
    /// `a=crypto` / SAVP it needs the parser's SRTP support first.)
    @Test func plainAllocationsParseBack() throws {
        var request = Self.negotiated
        request.rtcpMux = true
        let session = try SessionDescription.parse(SessionDescription.make(
            address: "192.0.2.1", sessionName: "t", request: request, videoPort: 40000, audioPort: 40001))
        let video = try #require(session.video), audio = try #require(session.audio)
        #expect(video.payloadType == 99 && video.codec == .h264 && video.port == 40000 && video.rtcpMux && video.rtcpPort == 40000)
        #expect(video.formatParameters["profile-level-id"] == "42e01f")
        #expect(video.videoOrientation?.id == 3)
        #expect(audio.payloadType == 96 && audio.codec == .opus && audio.channels == 2 && audio.port == 40001 && audio.rtcpMux)
    }
}
