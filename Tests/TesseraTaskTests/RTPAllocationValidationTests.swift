import Foundation
import Testing
import TesseraRTP
import TesseraTask

/// `inputs[].rtp.allocate` in its object form (issue 20), and `rtp.source`.
@Suite struct RTPAllocationValidationTests {
    /// A one-input audio-only document whose input's `rtp` is `rtp`.
    static func document(rtp: String) -> String {
        #"{"inputs": [{"id": "a", "url": "anchor.mp4"}, {"id": "sfu", "rtp": \#(rtp)}], "outputs": [{"url": "out.mp4"}]}"#
    }

    static func source(_ rtp: String) throws -> ResolvedInput.Source {
        try #require(TaskFixtures.task(TaskFixtures.validate(document(rtp: rtp)))).inputs[1].source
    }

    static func issues(_ rtp: String) -> [ValidationIssue] {
        TaskFixtures.issues(TaskFixtures.validate(document(rtp: rtp)))
    }

    static let key30 = Data(repeating: 7, count: 30).base64EncodedString()
    static let key28 = Data(repeating: 9, count: 28).base64EncodedString()

    @Test func theIssueExampleResolvesToWhatItSays() throws {
        let rtp = #"""
            {"allocate": {
               "video": {"codec": "H264", "payloadType": 99, "clockRate": 90000,
                         "fmtp": "packetization-mode=1;profile-level-id=42e01f", "rtxPayloadType": 100},
               "audio": {"codec": "opus", "payloadType": 96, "clockRate": 48000, "channels": 2},
               "extensions": {"urn:3gpp:video-orientation": 3, "urn:ietf:params:rtp-hdrext:ssrc-audio-level": 1},
               "rtcpMux": false,
               "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "\#(Self.key30)"}},
             "source": "10.0.0.7"}
            """#
        let expected = RTPAllocationRequest(
            video: .init(codec: .h264, payloadType: 99, clockRate: 90000, channels: 1,
                         fmtp: "packetization-mode=1;profile-level-id=42e01f", rtxPayloadType: 100),
            audio: .init(codec: .opus, payloadType: 96, clockRate: 48000, channels: 2, fmtp: nil),
            extensions: ["urn:3gpp:video-orientation": 3, "urn:ietf:params:rtp-hdrext:ssrc-audio-level": 1],
            rtcpMux: false, srtp: SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: Self.key30))
        #expect(try Self.source(rtp) == .rtpAllocate(request: expected, source: try RTPSourceFilter("10.0.0.7")))
    }

    /// The string form and an object naming only the codec ask for the same thing, so an update
    /// from one to the other keeps the ports.
    @Test func theStringFormIsTheCodecsUsualFormat() throws {
        let short = try Self.source(#"{"allocate": {"video": "h264", "audio": "PCMA"}}"#)
        let object = try Self.source(#"{"allocate": {"video": {"codec": "H264"}, "audio": {"codec": "pcma"}}}"#)
        #expect(short == object)
        let request = RTPAllocationRequest(video: .init(codec: .h264), audio: .init(codec: .pcma))
        #expect(short == .rtpAllocate(request: request))
        #expect(request.video == .init(codec: .h264, payloadType: 96, clockRate: 90000, channels: 1, fmtp: "packetization-mode=1"))
        #expect(request.audio == .init(codec: .pcma, payloadType: 8, clockRate: 8000, channels: 1, fmtp: nil))
    }

    @Test func staticG711TypesAndGCMKeys() throws {
        let rtp = #"{"allocate": {"audio": {"codec": "pcmu", "payloadType": 0}, "rtcpMux": true,"#
            + #" "srtp": {"suite": "AEAD_AES_128_GCM", "key": "\#(Self.key28)"}}}"#
        guard case .rtpAllocate(let request, nil) = try Self.source(rtp) else { Issue.record("not an allocation"); return }
        #expect(request.audio?.payloadType == 0 && request.rtcpMux && request.portsPerMedium == 1)
        #expect(request.srtp?.suite == "AEAD_AES_128_GCM")
    }

    /// Each case breaks one field and expects an issue at exactly that path.
    @Test(arguments: [
        (#"{"allocate": {"video": {"codec": "H265", "payloadType": 99}}}"#, "inputs[1].rtp.allocate.video.codec"),
        (#"{"allocate": {"video": {"payloadType": 99}}}"#, "inputs[1].rtp.allocate.video.codec"),
        (#"{"allocate": {"video": 96}}"#, "inputs[1].rtp.allocate.video"),
        (#"{"allocate": {"video": {"codec": "H264", "payloadType": 95}}}"#, "inputs[1].rtp.allocate.video.payloadType"),
        (#"{"allocate": {"video": {"codec": "H264", "payloadType": 128}}}"#, "inputs[1].rtp.allocate.video.payloadType"),
        (#"{"allocate": {"audio": {"codec": "pcma", "payloadType": 0}}}"#, "inputs[1].rtp.allocate.audio.payloadType"),
        (#"{"allocate": {"audio": {"codec": "opus", "payloadType": 8}}}"#, "inputs[1].rtp.allocate.audio.payloadType"),
        (#"{"allocate": {"video": {"codec": "VP8", "clockRate": 48000}}}"#, "inputs[1].rtp.allocate.video.clockRate"),
        (#"{"allocate": {"audio": {"codec": "opus", "clockRate": 16000}}}"#, "inputs[1].rtp.allocate.audio.clockRate"),
        (#"{"allocate": {"audio": {"codec": "pcmu", "clockRate": 16000}}}"#, "inputs[1].rtp.allocate.audio.clockRate"),
        (#"{"allocate": {"audio": {"codec": "aac", "clockRate": 44000}}}"#, "inputs[1].rtp.allocate.audio.clockRate"),
        (#"{"allocate": {"audio": {"codec": "aac", "clockRate": 44100}}}"#, "inputs[1].rtp.allocate.audio.fmtp"),
        (#"{"allocate": {"audio": {"codec": "opus", "channels": 1}}}"#, "inputs[1].rtp.allocate.audio.channels"),
        (#"{"allocate": {"video": {"codec": "VP9", "channels": 1}}}"#, "inputs[1].rtp.allocate.video.channels"),
        (#"{"allocate": {"video": {"codec": "H264", "fmtp": "packetization-mode=2"}}}"#, "inputs[1].rtp.allocate.video.fmtp"),
        (#"{"allocate": {"video": {"codec": "H264", "fmtp": "a=1\r\na=crypto:1 x"}}}"#, "inputs[1].rtp.allocate.video.fmtp"),
        (#"{"allocate": {"video": {"codec": "H264", "fmtp": " "}}}"#, "inputs[1].rtp.allocate.video.fmtp"),
        (#"{"allocate": {"audio": {"codec": "aac", "fmtp": "mode=AAC-hbr"}}}"#, "inputs[1].rtp.allocate.audio.fmtp"),
        (#"{"allocate": {"video": {"codec": "H264", "payloadType": 99, "rtxPayloadType": 99}}}"#,
         "inputs[1].rtp.allocate.video.rtxPayloadType"),
        (#"{"allocate": {"video": {"codec": "H264", "rtxPayloadType": 35}}}"#, "inputs[1].rtp.allocate.video.rtxPayloadType"),
        (#"{"allocate": {"audio": {"codec": "opus", "rtxPayloadType": 100}}}"#, "inputs[1].rtp.allocate.audio.rtxPayloadType"),
        (#"{"allocate": {"video": {"codec": "H264", "payloadTyp": 99}}}"#, "inputs[1].rtp.allocate.video.payloadTyp"),
        (#"{"allocate": {"video": "H264", "extensions": {"urn:x": 15}}}"#, "inputs[1].rtp.allocate.extensions.urn:x"),
        (#"{"allocate": {"video": "H264", "extensions": {"urn:x": 0}}}"#, "inputs[1].rtp.allocate.extensions.urn:x"),
        (#"{"allocate": {"video": "H264", "extensions": {"urn:x": "3"}}}"#, "inputs[1].rtp.allocate.extensions.urn:x"),
        (#"{"allocate": {"video": "H264", "extensions": {"urn:a": 3, "urn:b": 3}}}"#, "inputs[1].rtp.allocate.extensions.urn:b"),
        (#"{"allocate": {"video": "H264", "extensions": {"urn:a b": 3}}}"#, "inputs[1].rtp.allocate.extensions.urn:a b"),
        (#"{"allocate": {"video": "H264", "rtcpMux": "yes"}}"#, "inputs[1].rtp.allocate.rtcpMux"),
        (#"{"allocate": {"video": "H264", "srtp": {"suite": "AES_256_CM_HMAC_SHA1_80", "key": "AAAA"}}}"#,
         "inputs[1].rtp.allocate.srtp.suite"),
        (#"{"allocate": {"video": "H264", "srtp": {"suite": "AES_CM_128_HMAC_SHA1_32", "key": "not base64!"}}}"#,
         "inputs[1].rtp.allocate.srtp.key"),
        (#"{"allocate": {"video": "H264", "srtp": {"suite": "AEAD_AES_128_GCM", "key": "\#(RTPAllocationValidationTests.key30)"}}}"#,
         "inputs[1].rtp.allocate.srtp.key"),
        (#"{"allocate": {"video": "H264", "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80"}}}"#, "inputs[1].rtp.allocate.srtp.key"),
        (#"{"allocate": {"video": "H264"}, "source": "10.0.0.0/33"}"#, "inputs[1].rtp.source"),
        (#"{"allocate": {"video": "H264"}, "source": "sfu.example"}"#, "inputs[1].rtp.source"),
        (#"{"allocate": {"video": "H264"}, "source": "10.0.0.7:0"}"#, "inputs[1].rtp.source"),
        (#"{"sdp": "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 5006 RTP/AVP 0\r\n", "source": "[10.0.0.7]:5004"}"#, "inputs[1].rtp.source"),
        (#"{"allocate": {"video": "H264"}, "source": 7}"#, "inputs[1].rtp.source"),
    ])
    func refusesAtThePath(rtp: String, path: String) {
        let issues = Self.issues(rtp)
        #expect(issues.map(\.path).contains(path), "\(issues)")
    }

    /// Every problem is reported in one answer, and the key never appears in a message.
    @Test func reportsEveryIssueAndNeverTheKey() {
        let key = Data(repeating: 1, count: 29).base64EncodedString()
        let rtp = #"{"allocate": {"video": {"codec": "H264", "payloadType": 12, "rtxPayloadType": 12},"#
            + #" "audio": {"codec": "opus", "channels": 6}, "extensions": {"urn:x": 20},"#
            + #" "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "\#(key)"}}, "source": "300.1.1.1"}"#
        let issues = Self.issues(rtp)
        #expect(Set(issues.map(\.path)) == [
            "inputs[1].rtp.allocate.video.payloadType", "inputs[1].rtp.allocate.video.rtxPayloadType",
            "inputs[1].rtp.allocate.audio.channels", "inputs[1].rtp.allocate.extensions.urn:x",
            "inputs[1].rtp.allocate.srtp.key", "inputs[1].rtp.source",
        ], "\(issues)")
        #expect(!issues.contains { $0.message.contains(key) })
        #expect(issues.first { $0.path.hasSuffix("srtp.key") }?.message == "AES_CM_128_HMAC_SHA1_80 needs 30 bytes of master key and salt, got 29")
    }

    /// The allocator's own reader gives what the whole document gives.
    @Test func readingOneAllocationAgreesWithTheDocument() throws {
        let value = TaskFixtures.value(#"{"video": {"codec": "VP8", "payloadType": 100}, "rtcpMux": true}"#)
        let request = try RTPAllocationRequest.read(value, path: "inputs[0].rtp.allocate").get()
        #expect(request == RTPAllocationRequest(video: .init(codec: .vp8, payloadType: 100, clockRate: 90000, channels: 1, fmtp: nil),
                                                rtcpMux: true))
        let bad = RTPAllocationRequest.read(TaskFixtures.value(#"{"video": {"codec": "VP8", "payloadType": 1}}"#),
                                            path: "inputs[2].rtp.allocate")
        guard case .failure(let failure) = bad else { Issue.record("payload type 1 was taken"); return }
        #expect(failure.issues.map(\.path) == ["inputs[2].rtp.allocate.video.payloadType"])
    }

    /// Stored documents keep the string form; the object form survives a Codable round trip.
    @Test func documentCodingKeepsBothForms() throws {
        var allocation = RTPAllocation(video: "H264", audio: RTPMediumSpec(codec: "opus", payloadType: 96))
        allocation.extensions = ["urn:3gpp:video-orientation": 3]
        let spec = RTPSpec(allocate: allocation, source: "10.0.0.0/24")
        let json = String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)
        #expect(json.contains(#""video":"H264""#) && json.contains(#""payloadType":96"#))
        #expect(try JSONDecoder().decode(RTPSpec.self, from: Data(json.utf8)) == spec)
    }
}
