import Foundation
import Testing
import TesseraComposition
import TesseraRTP
import TesseraTask

/// `outputs[]` with `rtp://HOST:PORT` and its `rtp` object (issue 21): defaults, field paths,
/// and the SSRCs Tessera picks.
@Suite struct RTPOutputValidationTests {
    static let video = #""encoder": {"video": {"width": 640, "height": 360}},"#

    static func document(_ output: String, video: Bool = true, extra: String = "") -> String {
        #"{"taskId": "room", "inputs": [{"id": "a", "url": "anchor.mp4"}], \#(video ? Self.video : "") \#(extra) "outputs": [\#(output)]}"#
    }

    static func settings(_ output: String, video: Bool = true) throws -> RTPOutputSettings {
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document(output, video: video))))
        guard case .rtp(let settings) = task.outputs[0].kind else {
            Issue.record("not an rtp output")
            return RTPOutputSettings(host: "", video: nil, audio: .init(port: 0, rtcpPort: 0, payloadType: 0, ssrc: 0))
        }
        return settings
    }

    static func issues(_ output: String, video: Bool = true, extra: String = "") -> [ValidationIssue] {
        TaskFixtures.issues(TaskFixtures.validate(document(output, video: video, extra: extra)))
    }

    static func paths(_ output: String, video: Bool = true, extra: String = "") -> [String] {
        issues(output, video: video, extra: extra).map(\.path)
    }

    @Test func defaults() throws {
        let settings = try Self.settings(#"{"url": "rtp://10.0.0.5:5004"}"#)
        #expect(settings.host == "10.0.0.5" && settings.videoCodec == .h264 && settings.audioCodec == .opus && !settings.rtcpMux)
        #expect(settings.video?.port == 5004 && settings.video?.rtcpPort == 5005 && settings.video?.payloadType == 96)
        #expect(settings.audio.port == 5006 && settings.audio.rtcpPort == 5007 && settings.audio.payloadType == 111)
        #expect(settings.video?.ssrc == RTPOutputSettings.defaultSSRC(taskId: "room", url: "rtp://10.0.0.5:5004", medium: "video"))
        #expect(settings.video?.ssrc != settings.audio.ssrc)
    }

    /// The SSRCs Tessera picks do not change when the same task is validated again (an update,
    /// a move to another node), and differ between outputs and tasks.
    @Test func chosenSSRCsAreStable() throws {
        let first = try Self.settings(#"{"url": "rtp://10.0.0.5:5004"}"#)
        let again = try Self.settings(#"{"url": "rtp://10.0.0.5:5004"}"#)
        let other = try Self.settings(#"{"url": "rtp://10.0.0.5:6004"}"#)
        #expect(first == again)
        #expect(first.video?.ssrc != other.video?.ssrc && first.audio.ssrc != other.audio.ssrc)
        #expect(RTPOutputSettings.defaultSSRC(taskId: "a", url: "u", medium: "video")
            != RTPOutputSettings.defaultSSRC(taskId: "b", url: "u", medium: "video"))
    }

    @Test func everythingGiven() throws {
        let key = Data(repeating: 3, count: 30).base64EncodedString()
        let settings = try Self.settings(#"""
            {"url": "rtp://sfu.example:7000", "rtp": {"audioPort": 7100, "videoCodec": "VP8", "audioCodec": "opus",
             "videoPayloadType": 100, "audioPayloadType": 101, "videoSsrc": 1111, "audioSsrc": 2222, "rtcpMux": true,
             "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "\#(key)"}}}
            """#)
        #expect(settings == RTPOutputSettings(
            host: "sfu.example", video: .init(port: 7000, rtcpPort: 7000, payloadType: 100, ssrc: 1111), videoCodec: .vp8,
            audio: .init(port: 7100, rtcpPort: 7100, payloadType: 101, ssrc: 2222), audioCodec: .opus, rtcpMux: true,
            srtp: SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: key)))
    }

    /// A voice room: the URL's port is the audio's, and there is no video stream.
    @Test func audioOnlyTaskSendsToTheURLsPort() throws {
        let settings = try Self.settings(#"{"url": "rtp://127.0.0.1:5004"}"#, video: false)
        #expect(settings.video == nil && settings.audio.port == 5004 && settings.audio.rtcpPort == 5005)
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5004", "rtp": {"videoCodec": "h264", "audioPort": 5008}}"#, video: false)
            == ["outputs[0].rtp.videoCodec", "outputs[0].rtp.audioPort"])
    }

    @Test func everyBadFieldIsNamed() {
        let issues = Self.issues(#"""
            {"url": "rtp://127.0.0.1:5000", "rtp": {"videoCodec": "h265", "audioCodec": "aac", "videoPayloadType": 95,
             "audioPayloadType": 128, "videoSsrc": 0, "audioSsrc": 4294967296, "audioPort": 70000,
             "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "c2hvcnQ="}}}
            """#)
        #expect(issues.map(\.path) == ["outputs[0].rtp.videoCodec", "outputs[0].rtp.audioCodec", "outputs[0].rtp.audioPort",
                                        "outputs[0].rtp.videoPayloadType", "outputs[0].rtp.audioPayloadType",
                                        "outputs[0].rtp.videoSsrc", "outputs[0].rtp.audioSsrc", "outputs[0].rtp.srtp.key"])
        #expect(issues.first { $0.path.hasSuffix("srtp.key") }?.message.contains("30 bytes") == true)
        #expect(!issues.contains { $0.message.contains("c2hvcnQ") }, "a key is never echoed")
    }

    /// Janus's VideoRoom remote publisher: one port for both, its own RTCP port.
    @Test func givenRTCPPorts() throws {
        let settings = try Self.settings(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"audioPort": 5000, "videoRtcpPort": 10000, "audioRtcpPort": 10000}}"#)
        #expect(settings.video?.rtcpPort == 10000 && settings.audio.rtcpPort == 10000 && settings.audio.port == 5000)
    }

    @Test func portsAndURLs() {
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1"}"#) == ["outputs[0].url"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:65535"}"#) == ["outputs[0].url"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:65535", "rtp": {"rtcpMux": true, "audioPort": 6000}}"#) == [])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000/live?x=1"}"#) == ["outputs[0].url"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"audioPort": 5001}}"#) == ["outputs[0].rtp.audioPort"])
        // One port for both, as a Janus VideoRoom remote publisher takes them: distinct payload types.
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"audioPort": 5000, "videoSsrc": 1000, "audioSsrc": 1010}}"#)
            == [])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"audioPort": 5000, "audioPayloadType": 96}}"#)
            == ["outputs[0].rtp.audioPayloadType"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"rtcpMux": true, "videoRtcpPort": 6001, "audioRtcpPort": 0}}"#)
            == ["outputs[0].rtp.videoRtcpPort", "outputs[0].rtp.audioRtcpPort"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"audioRtcpPort": 0}}"#) == ["outputs[0].rtp.audioRtcpPort"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"videoSsrc": 7, "audioSsrc": 7}}"#)
            == ["outputs[0].rtp.audioSsrc"])
        #expect(Self.paths(#"{"url": "rtmp://127.0.0.1/live/x", "rtp": {}}"#) == ["outputs[0].rtp"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000", "rtp": {"payloadType": 96}}"#) == ["outputs[0].rtp.payloadType"])
    }

    @Test func needsALiveMixAtAnOpusRate() {
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000"}"#, extra: #""pace": "asap","#) == ["outputs[0].url"])
        // Offline (`tessera mix`, `validate`), a task that names no pace runs on the wall clock.
        let offline = TaskFixtures.options(offline: true, pace: .asap)
        let task = TaskFixtures.task(TaskFixtures.validate(Self.document(#"{"url": "rtp://127.0.0.1:5000"}"#), options: offline))
        #expect(task?.pace == .realtime)
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000"}"#, video: false, extra: #""encoder": {"audio": {"sampleRate": 44100}},"#)
            == ["encoder.audio.sampleRate"])
        #expect(Self.paths(#"{"url": "rtp://127.0.0.1:5000"}"#, video: false, extra: #""encoder": {"audio": {"sampleRate": 16000}},"#)
            == [])
    }

    @Test func profileOfTheMainEncode() throws {
        let extra = #""encoder": {"video": {"width": 640, "height": 360, "profile": "baseline"}},"#
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(Self.document(#"{"url": "out.mp4"}"#, video: false, extra: extra))))
        #expect(task.video?.profile == .baseline)
        let bad = #""encoder": {"video": {"width": 640, "height": 360, "profile": "extended"}},"#
        #expect(Self.paths(#"{"url": "out.mp4"}"#, video: false, extra: bad) == ["encoder.video.profile"])
    }
}

/// The SDP an RTP output reports, and the H.264 level it names.
@Suite struct RTPOutputSessionDescriptionTests {
    static let video = VideoSettings(width: 1280, height: 720, fps: 30, bitrateKbps: 2000, gopFrames: 60, codec: "h264",
                                     preset: "veryfast")
    static let audio = AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 64, codec: "aac")

    @Test func describesExactlyWhatIsSent() {
        let settings = RTPOutputSettings(host: "10.0.0.5", video: .init(port: 5004, rtcpPort: 5005, payloadType: 96, ssrc: 1111),
                                         audio: .init(port: 5006, rtcpPort: 5007, payloadType: 111, ssrc: 2222))
        let sdp = settings.sessionDescription(sessionName: "Tessera", cname: "tessera-457", video: Self.video, audio: Self.audio)
        #expect(sdp == [
            "v=0", "o=- 0 0 IN IP4 10.0.0.5", "s=Tessera", "c=IN IP4 10.0.0.5", "t=0 0",
            "m=video 5004 RTP/AVPF 96", "a=rtpmap:96 H264/90000",
            "a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
            "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 ccm fir", "a=rtcp:5005", "a=ssrc:1111 cname:tessera-457", "a=sendonly",
            "m=audio 5006 RTP/AVP 111", "a=rtpmap:111 opus/48000/2",
            "a=fmtp:111 minptime=10;useinbandfec=1;stereo=1;sprop-stereo=1",
            "a=rtcp:5007", "a=ssrc:2222 cname:tessera-457", "a=sendonly",
        ].map { $0 + "\r\n" }.joined())
        // Tessera's own SDP reader takes it (as an SFU controller's would).
        let parsed = try? SessionDescription.parse(sdp)
        #expect(parsed?.video?.payloadType == 96 && parsed?.audio?.codec == .opus)
    }

    @Test func srtpMuxAndVP8() {
        let key = Data(repeating: 1, count: 30).base64EncodedString()
        let settings = RTPOutputSettings(host: "::1", video: .init(port: 5004, rtcpPort: 5004, payloadType: 100, ssrc: 1),
                                         videoCodec: .vp8, audio: .init(port: 5006, rtcpPort: 5006, payloadType: 101, ssrc: 2),
                                         rtcpMux: true, srtp: SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: key))
        let mono = AudioSettings(sampleRate: 48000, channels: 1, bitrateKbps: 64, codec: "aac")
        let sdp = settings.sessionDescription(sessionName: "x\r\na=evil", cname: "c", video: Self.video, audio: mono)
        #expect(sdp.contains("c=IN IP6 ::1\r\n") && sdp.contains("s=xa=evil\r\n"))
        #expect(sdp.contains("m=video 5004 RTP/SAVPF 100\r\na=rtpmap:100 VP8/90000\r\na=rtcp-fb:100 nack pli"))
        #expect(sdp.contains("m=audio 5006 RTP/SAVP 101") && sdp.contains("stereo=0;sprop-stereo=0"))
        #expect(sdp.components(separatedBy: "a=rtcp-mux\r\n").count == 3)
        #expect(sdp.components(separatedBy: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)\r\n").count == 3)
    }

    @Test func levelsBySizeAndRate() {
        #expect(H264Level.idc(width: 320, height: 240, fps: 30) == 31)
        #expect(H264Level.idc(width: 1280, height: 720, fps: 30) == 31)
        #expect(H264Level.idc(width: 1280, height: 720, fps: 60) == 32)
        #expect(H264Level.idc(width: 1920, height: 1080, fps: 30) == 40)
        #expect(H264Level.idc(width: 1920, height: 1080, fps: 60) == 42)
        #expect(H264Level.idc(width: 3840, height: 2160, fps: 30) == 51)
        #expect(H264Level.idc(width: 3840, height: 2160, fps: 60) == 52)
    }
}

/// Cutting the mix into an encoder's frame size.
@Suite struct AudioFrameChunkerTests {
    static func chunk(_ values: [Float]) -> [UnsafePointer<Float>] {
        [values, values.map { -$0 }].map { plane in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: plane.count)
            pointer.initialize(from: plane, count: plane.count)
            return UnsafePointer(pointer)
        }
    }

    @Test func framesOfOneSizeFromChunksOfAnother() {
        var chunker = AudioFrameChunker(frameSize: 960, channels: 2)
        let planes = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 960) }
        defer { planes.forEach { $0.deallocate() } }
        var starts: [Int64] = []
        var firstSamples: [Float] = []
        for index in 0..<15 {
            let input = Self.chunk((0..<1024).map { Float(index * 1024 + $0) })
            defer { input.forEach { $0.deallocate() } }
            chunker.append(input, count: 1024, start: Int64(index * 1024))
            while let start = chunker.nextFrame(into: planes) {
                starts.append(start)
                firstSamples.append(planes[0][0])
                #expect(planes[1][959] == -(planes[0][959]))
                #expect(planes[0][959] == Float(start + 959))
            }
        }
        #expect(starts == (0..<16).map { Int64($0 * 960) })
        #expect(firstSamples == starts.map(Float.init))
        #expect(chunker.pendingSamples == 15 * 1024 - 16 * 960)
    }

    /// A jump in the mix's position drops what was pending: no frame spans a gap.
    @Test func aGapStartsAfresh() {
        var chunker = AudioFrameChunker(frameSize: 960, channels: 2)
        let planes = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: 960) }
        defer { planes.forEach { $0.deallocate() } }
        let first = Self.chunk(Array(repeating: 1, count: 500))
        let second = Self.chunk(Array(repeating: 2, count: 1000))
        defer { (first + second).forEach { $0.deallocate() } }
        chunker.append(first, count: 500, start: 0)
        chunker.append(second, count: 1000, start: 10_000)
        #expect(chunker.nextFrame(into: planes) == 10_000)
        #expect(planes[0][0] == 2 && planes[0][959] == 2)
    }
}
