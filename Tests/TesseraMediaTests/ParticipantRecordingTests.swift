import Testing
import TesseraMedia

/// The pure decisions of a per-participant recording: where its files start and split, what is
/// left out while paused, timestamps kept in order, the names of its files and the headers a
/// container needs for media that came bare over RTP.
@Suite struct ParticipantRecordingTests {
    private typealias Plan = ParticipantRecordingPlan

    private func video(_ pts: Int64, key: Bool = false, ssrc: UInt32? = 1, size: (Int, Int) = (640, 360)) -> Plan.Packet {
        Plan.Packet(kind: .video, isKeyframe: key, sender: ssrc, width: size.0, height: size.1, ptsMicroseconds: pts)
    }

    private func audio(_ pts: Int64, ssrc: UInt32? = 2) -> Plan.Packet {
        Plan.Packet(kind: .audio, isKeyframe: true, sender: ssrc, ptsMicroseconds: pts)
    }

    /// Outside `#expect`, whose expansion cannot call a mutating method.
    private func decide(_ plan: inout Plan, _ packet: Plan.Packet) -> Plan.Action { plan.decide(packet) }

    @Test func aFileStartsAtAVideoKeyframeAndAudioBeforeItIsLeftOut() {
        var plan = Plan(hasVideo: true)
        #expect(decide(&plan, audio(1_000)) == .drop)
        #expect(decide(&plan, video(2_000)) == .drop)
        #expect(decide(&plan, video(3_000, key: true)) == .open)
        #expect(plan.fileStartMicroseconds == 3_000)
        #expect(decide(&plan, audio(2_900)) == .drop)
        #expect(decide(&plan, audio(3_010)) == .write)
        #expect(decide(&plan, video(36_000)) == .write)
    }

    @Test func anAudioOnlyInputStartsAtItsFirstAudioPacket() {
        var plan = Plan(hasVideo: false)
        #expect(decide(&plan, audio(5_000)) == .open)
        #expect(decide(&plan, audio(25_000)) == .write)
        // A new sender (a rejoin) starts the next file at once.
        #expect(decide(&plan, audio(9_000_000, ssrc: 7)) == .reopen)
        #expect(plan.fileStartMicroseconds == 9_000_000)
    }

    @Test func aNewSenderSplitsAtItsFirstKeyframeAndNothingOfItComesBefore() {
        var plan = Plan(hasVideo: true)
        #expect(decide(&plan, video(0, key: true)) == .open)
        #expect(decide(&plan, video(33_000)) == .write)
        #expect(decide(&plan, video(4_000_000, ssrc: 9)) == .drop)
        #expect(decide(&plan, audio(4_010_000, ssrc: 10)) == .drop)
        #expect(decide(&plan, video(4_033_000, key: true, ssrc: 9)) == .reopen)
        #expect(plan.fileStartMicroseconds == 4_033_000)
        #expect(decide(&plan, audio(4_040_000, ssrc: 10)) == .write)
        #expect(decide(&plan, video(4_066_000, ssrc: 9)) == .write)
    }

    @Test func aNewPictureSizeSplitsTheFileToo() {
        var plan = Plan(hasVideo: true)
        #expect(decide(&plan, video(0, key: true)) == .open)
        #expect(decide(&plan, video(33_000, key: true, size: (1280, 720))) == .reopen)
        #expect(decide(&plan, video(66_000, size: (1280, 720))) == .write)
    }

    @Test func pausedDropsEverythingAndResumesAtTheNextKeyframe() {
        var plan = Plan(hasVideo: true)
        #expect(decide(&plan, video(0, key: true)) == .open)
        plan.setPaused(true)
        #expect(decide(&plan, video(33_000, key: true)) == .drop)
        #expect(decide(&plan, audio(40_000)) == .drop)
        plan.setPaused(false)
        #expect(decide(&plan, audio(70_000)) == .drop)
        #expect(decide(&plan, video(66_000)) == .drop)
        #expect(decide(&plan, video(99_000, key: true)) == .write)
        #expect(decide(&plan, audio(100_000)) == .write)
        #expect(plan.isOpen)
    }

    @Test func aClosedFileIsFollowedByANewOneAtTheNextKeyframe() {
        var plan = Plan(hasVideo: true)
        #expect(decide(&plan, video(0, key: true)) == .open)
        plan.closed()
        #expect(decide(&plan, video(33_000)) == .drop)
        #expect(decide(&plan, video(66_000, key: true)) == .open)
    }

    @Test func timestampsThatGoBackAreClampedNeverReordered() {
        var stamps = MonotonicStamps()
        let given: [(Int64, Int64)] = [(100, 100), (90, 90), (101, 101), (200, 150)]
        let stamped = given.map { stamps.stamp(pts: $0.0, dts: $0.1) }
        #expect(stamped.map { [$0.pts, $0.dts] } == [[100, 100], [101, 101], [102, 102], [200, 150]])
        #expect(stamps.clamped == 2)
    }

    @Test func audioPlacedBeforeThePreviousEndIsDroppedNeverSqueezed() {
        // 20 ms Opus packets (ms time base); at 100 the placement is pulled 280 ms earlier (a burst
        // after a stall): the packets that would start inside what was written are dropped.
        var stamps = MonotonicStamps()
        #expect(stamps.stampAudio(pts: 0, duration: 20, tolerance: 2) == 0)
        #expect(stamps.stampAudio(pts: 20, duration: 20, tolerance: 2) == 20)
        #expect(stamps.stampAudio(pts: 40, duration: 20, tolerance: 2) == 40)
        let burst = [21, 41, 59, 79].map { stamps.stampAudio(pts: $0, duration: 20, tolerance: 2) }
        #expect(burst == [nil, nil, 60, 80])
        #expect(stamps.droppedOverlap == 2)
        // A start within the tolerance before the end is moved to it; none squeezed a tick apart.
        #expect(stamps.stampAudio(pts: 99, duration: 20, tolerance: 2) == 100)
        #expect(stamps.stampAudio(pts: 120, duration: 20, tolerance: 2) == 120)
        // Without a known duration only order is kept.
        var bare = MonotonicStamps()
        #expect([bare.stampAudio(pts: 5, duration: 0), bare.stampAudio(pts: 5, duration: 0)] == [5, 6])
        #expect(stamps.clamped == 0)
    }

    @Test func filesTakeTheNextFreeNameAndNeverOneThatExists() {
        let path = ParticipantFileNames.path(template: "/rec/room42-{input}.mkv", input: "guest")
        #expect(path == "/rec/room42-guest.mkv")
        #expect(ParticipantFileNames.nextIndex(after: nil, path: path, exists: { _ in false }) == 0)
        let existing: Set = ["/rec/room42-guest.mkv", "/rec/room42-guest.1.mkv"]
        #expect(ParticipantFileNames.nextIndex(after: nil, path: path, exists: existing.contains) == 2)
        #expect(ParticipantFileNames.nextIndex(after: 0, path: path, exists: { _ in false }) == 1)
        #expect(ParticipantFileNames.nextIndex(after: 2, path: path, exists: existing.contains) == 3)
    }

    @Test func opusHeadIsRFC7845sIdentificationHeader() {
        let head = RecordingCodecHeaders.opusHead(channels: 2)
        #expect(head.count == 19)
        #expect(Array(head[0..<8]) == Array("OpusHead".utf8))
        #expect(head[8] == 1 && head[9] == 2)
        #expect(Array(head[12..<16]) == [0x80, 0xBB, 0x00, 0x00])
        #expect(head[18] == 0)
        #expect(RecordingCodecHeaders.opusHead(channels: 6)[9] == 2)
    }

    @Test func vp8KeyframeHeaderGivesThePictureSize() {
        // Frame tag (key frame, version 0, shown), start code, 640 x 360 with no scaling.
        let key: [UInt8] = [0x50, 0x2A, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0x68, 0x01, 0xFF]
        #expect(RecordingCodecHeaders.vp8KeyframeSize(key).map { [$0.width, $0.height] } == [640, 360])
        var inter = key
        inter[0] |= 1
        #expect(RecordingCodecHeaders.vp8KeyframeSize(inter) == nil)
        #expect(RecordingCodecHeaders.vp8KeyframeSize(Array(key.prefix(8))) == nil)
    }

    @Test func h264ParameterSetsAreTakenFromTheKeyframe() {
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E], pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80], idr: [UInt8] = [0x65, 0x88, 0x84]
        let keyframe = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 0, 1] + idr
        #expect(RecordingCodecHeaders.h264ParameterSets(annexB: keyframe) == [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps)
        #expect(RecordingCodecHeaders.h264ParameterSets(annexB: [0, 0, 0, 1] + idr).isEmpty)
    }
}
