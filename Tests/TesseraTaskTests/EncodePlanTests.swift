import Testing
import TesseraTask

/// Which encodes the outputs take, which rendition each makes, what each is called, and where
/// each packet goes.
@Suite struct EncodePlanTests {
    static let video = VideoSettings(width: 640, height: 360, fps: 30, bitrateKbps: 1000, gopFrames: 30, codec: "h264",
                                     preset: "ultrafast",
                                     renditions: [Rendition(width: 480, height: 270, bitrateKbps: 600, fps: 30),
                                                  Rendition(width: 320, height: 180, bitrateKbps: 300, fps: 15, frameStep: 2)])
    static let plan = EncodePlan(video: video)

    @Test func renditionsAreMadeByTheMainEncodeAndTheirOwn() {
        #expect(Self.plan.mainVideoFormat == .h264(.high))
        #expect(Self.plan.videoFormat(forRendition: 0) == .h264(.high))
        #expect(Self.plan.videoFormat(forRendition: 2) == .rendition(2))
        #expect(Self.plan.rendition(of: .h264(.high)) == 0)
        #expect(Self.plan.rendition(of: .rendition(1)) == 1)
        // RTP's own encodes make no rendition, unless the task's profile is baseline (one x264 for both).
        #expect(Self.plan.rendition(of: .h264(.baseline)) == nil)
        #expect(Self.plan.rendition(of: .vp8) == nil)
        var baseline = Self.video
        baseline.profile = .baseline
        #expect(EncodePlan(video: baseline).rendition(of: .h264(.baseline)) == 0)
    }

    @Test func outputsTakeTheEncodesTheyNeedAndNoMore() {
        let file = Self.plan.encodes(for: [.container(rendition: 2), .raw])
        #expect(file.video == [.rendition(2)] && file.audio == [.aac])
        let ladder = Self.plan.encodes(for: [.ladder])
        #expect(ladder.video == [.h264(.high), .rendition(1), .rendition(2)] && ladder.audio == [.aac])
        let room = Self.plan.encodes(for: [.rtp(video: .vp8), .rtp(video: nil)])
        #expect(room.video == [.vp8] && room.audio == [.opus])
        #expect(Self.plan.encodes(for: [.raw]).video.isEmpty)
        // A task without video: containers take the AAC alone.
        let voice = EncodePlan(video: nil).encodes(for: [.container(rendition: 0)])
        #expect(voice.video.isEmpty && voice.audio == [.aac])
    }

    @Test func aRenditionsStreamsStayWhileItsEncodesDo() {
        #expect(Self.plan.streamsStayOpen(rendition: 1, video: [.rendition(1)], audio: [.aac]))
        #expect(!Self.plan.streamsStayOpen(rendition: 1, video: [.rendition(2)], audio: [.aac]))
        #expect(!Self.plan.streamsStayOpen(rendition: 0, video: [.h264(.high)], audio: [.opus]))
        #expect(EncodePlan(video: nil).streamsStayOpen(rendition: 0, video: [], audio: [.aac]))
    }

    @Test func encodesAreNamedVideoFirstEachGroupSorted() {
        let names = Self.plan.names(video: [.rendition(2), .vp8, .h264(.high), .rendition(1)], audio: [.opus, .aac])
        #expect(names == ["h264-high", "h264-high-r1-480x270", "h264-high-r2-320x180", "vp8", "aac", "opus"])
    }

    @Test func videoPacketsGoToTheOutputsOfTheirRendition() {
        let plan = Self.plan
        #expect(PacketRoute.video(from: .h264(.high), to: .container(rendition: 0), plan: plan) == .stream(0))
        #expect(PacketRoute.video(from: .h264(.high), to: .container(rendition: 1), plan: plan) == nil)
        #expect(PacketRoute.video(from: .rendition(1), to: .container(rendition: 1), plan: plan) == .stream(0))
        #expect(PacketRoute.video(from: .rendition(2), to: .ladder, plan: plan) == .variant(2))
        #expect(PacketRoute.video(from: .h264(.high), to: .ladder, plan: plan) == .variant(0))
        #expect(PacketRoute.video(from: .vp8, to: .ladder, plan: plan) == nil)
        #expect(PacketRoute.video(from: .vp8, to: .rtp(video: .vp8), plan: plan) == .rtp(isVideo: true))
        #expect(PacketRoute.video(from: .h264(.high), to: .rtp(video: .h264(.baseline)), plan: plan) == nil)
        #expect(PacketRoute.video(from: .h264(.high), to: .raw, plan: plan) == nil)
    }

    @Test func audioPacketsFollowTheVideoStreamOrGoAlone() {
        let plan = Self.plan
        #expect(PacketRoute.audio(from: .aac, to: .container(rendition: 2), plan: plan) == .stream(1))
        #expect(PacketRoute.audio(from: .aac, to: .container(rendition: 0), plan: EncodePlan(video: nil)) == .stream(0))
        #expect(PacketRoute.audio(from: .aac, to: .ladder, plan: plan) == .everyVariant)
        #expect(PacketRoute.audio(from: .opus, to: .rtp(video: nil), plan: plan) == .rtp(isVideo: false))
        #expect(PacketRoute.audio(from: .aac, to: .rtp(video: .vp8), plan: plan) == nil)
        #expect(PacketRoute.audio(from: .opus, to: .container(rendition: 0), plan: plan) == nil)
        #expect(PacketRoute.audio(from: .aac, to: .raw, plan: plan) == nil)
    }
}
