import Testing
import TesseraComposition
import TesseraMedia

/// The pure decisions behind issue 30's recording integrity: each run of an HLS playlist under
/// its own `#EXT-X-MAP`, a paused recording's timeline without a hole, a live task's first frame
/// on its inputs' first pictures.
@Suite struct HLSRunPlaylistTests {
    /// What FFmpeg 5.1 writes for a second run with `append_list`: one map (the new run's) for
    /// everything, a discontinuity at the run boundary and, with `discont_start`, one at the top.
    static let ffmpegSecondRun = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:EVENT
        #EXT-X-DISCONTINUITY
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="live1_init_1.mp4"
        #EXTINF:2.000000,
        #EXT-X-PROGRAM-DATE-TIME:2026-11-28T00:00:00.000+0000
        live1_00000.m4s
        #EXTINF:2.000000,
        live1_00001.m4s
        #EXT-X-DISCONTINUITY
        #EXTINF:2.000000,
        #EXT-X-PROGRAM-DATE-TIME:2026-11-28T00:01:00.000+0000
        live1_00002.m4s
        #EXT-X-ENDLIST

        """

    static let firstRun = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:EVENT
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="live1_init.mp4"
        #EXTINF:2.000000,
        live1_00000.m4s
        #EXTINF:2.000000,
        live1_00001.m4s
        #EXT-X-ENDLIST

        """

    @Test func aFirstRunKeepsTheUsualInitNameAndNoDiscontinuity() {
        var run = HLSRunPlaylist(earlier: nil, fileName: "live1", fmp4: true)
        #expect(run.initName == "live1_init.mp4")
        #expect(!run.continues)
        // FFmpeg over HTTP marks even a first run's first segment.
        let written = Self.firstRun.replacingOccurrences(of: "#EXT-X-INDEPENDENT-SEGMENTS", with: "#EXT-X-DISCONTINUITY\n#EXT-X-INDEPENDENT-SEGMENTS")
        let text = run.rewrite(written).text
        #expect(!text.contains("DISCONTINUITY"))
        #expect(text.components(separatedBy: "#EXT-X-MAP:URI=\"live1_init.mp4\"").count == 2)
    }

    @Test func aSecondRunNamesItsOwnInitSegmentAfterTheDiscontinuity() {
        var run = HLSRunPlaylist(earlier: Self.firstRun, fileName: "live1", fmp4: true)
        #expect(run.initName == "live1_init_1.mp4")
        #expect(run.continues)
        let lines = run.rewrite(Self.ffmpegSecondRun).text.split(separator: "\n").map(String.init)
        let maps = lines.filter { $0.hasPrefix("#EXT-X-MAP") }
        #expect(maps == ["#EXT-X-MAP:URI=\"live1_init.mp4\"", "#EXT-X-MAP:URI=\"live1_init_1.mp4\""])
        // One discontinuity, right before the second run's map and first segment.
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
        let boundary = lines.firstIndex(of: "#EXT-X-DISCONTINUITY")!
        #expect(lines[boundary + 1] == "#EXT-X-MAP:URI=\"live1_init_1.mp4\"")
        let afterBoundary = lines[(boundary + 2)...].first { !$0.hasPrefix("#") }
        #expect(afterBoundary == "live1_00002.m4s")
        #expect(lines.firstIndex(of: "#EXT-X-MAP:URI=\"live1_init.mp4\"")! < lines.firstIndex(of: "live1_00000.m4s")!)
        #expect(lines.contains("#EXT-X-PROGRAM-DATE-TIME:2026-11-28T00:01:00.000+0000"))
        #expect(lines.last == "#EXT-X-ENDLIST")
        #expect(!lines.contains { $0.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE") })
    }

    @Test func aThirdRunGoesOnNumberingAndSkipsNamesInUse() {
        var second = HLSRunPlaylist(earlier: Self.firstRun, fileName: "live1", fmp4: true)
        let afterTwo = second.rewrite(Self.ffmpegSecondRun).text
        let third = HLSRunPlaylist(earlier: afterTwo, fileName: "live1", fmp4: true, exists: { $0 == "live1_init_2.mp4" })
        #expect(third.initName == "live1_init_3.mp4")
    }

    @Test func transportStreamRunsHaveNoMapOnlyTheBoundary() {
        let earlier = Self.firstRun.replacingOccurrences(of: "#EXT-X-MAP:URI=\"live1_init.mp4\"\n", with: "")
            .replacingOccurrences(of: ".m4s", with: ".ts")
        var run = HLSRunPlaylist(earlier: earlier, fileName: "live1", fmp4: false)
        #expect(run.initName == nil)
        let written = Self.ffmpegSecondRun.replacingOccurrences(of: "#EXT-X-MAP:URI=\"live1_init_1.mp4\"\n", with: "")
            .replacingOccurrences(of: ".m4s", with: ".ts")
        let lines = run.rewrite(written).text.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("#EXT-X-MAP") })
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 1)
        let boundary = lines.firstIndex(of: "#EXT-X-DISCONTINUITY")!
        let afterBoundary = lines[boundary...].first { !$0.hasPrefix("#") }
        #expect(afterBoundary == "live1_00002.ts")
    }

    @Test func aSlidingWindowCountsDroppedDiscontinuitiesAndReleasesOldInits() {
        var run = HLSRunPlaylist(earlier: Self.firstRun, fileName: "live1", fmp4: true)
        // The window moved past the first run: only this run's segments are listed.
        let written = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:3
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="live1_init_1.mp4"
            #EXTINF:2.000000,
            live1_00003.m4s
            #EXTINF:2.000000,
            live1_00004.m4s

            """
        let (text, released) = run.rewrite(written)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(released == ["live1_init.mp4"])
        #expect(!lines.contains("#EXT-X-DISCONTINUITY"))
        let sequence = lines.firstIndex(of: "#EXT-X-MEDIA-SEQUENCE:3")!
        #expect(lines[sequence + 1] == "#EXT-X-DISCONTINUITY-SEQUENCE:1")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-MAP") } == ["#EXT-X-MAP:URI=\"live1_init_1.mp4\""])
    }

    @Test func aPlaylistOfTheOldKindKeepsItsOneMapForTheEarlierSegments() {
        // Written before each run had its own init: one map on top, a stray discontinuity.
        let old = Self.ffmpegSecondRun.replacingOccurrences(of: "live1_init_1.mp4", with: "live1_init.mp4")
        var run = HLSRunPlaylist(earlier: old, fileName: "live1", fmp4: true)
        #expect(run.initName == "live1_init_1.mp4")
        let next = old.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "#EXT-X-DISCONTINUITY\n#EXTINF:2.0,\nlive1_00003.m4s\n")
        let lines = run.rewrite(next).text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("#EXT-X-MAP") }
            == ["#EXT-X-MAP:URI=\"live1_init.mp4\"", "#EXT-X-MAP:URI=\"live1_init.mp4\"", "#EXT-X-MAP:URI=\"live1_init_1.mp4\""])
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2)
    }
}

@Suite struct PauseTimelineTests {
    static let frame: Int64 = 33_333, audioFrame: Int64 = 21_333

    /// Audio runs 0.33 s ahead of the video in the publisher's queue (x264's lookahead): the
    /// resume goes on from the last picture, and the audio within one audio frame of its end.
    @Test func aResumeLeavesNoHoleWhenAudioRunsAhead() {
        var timeline = PauseTimeline(streams: 2, videoStream: 0)
        let lead: Int64 = 330_000
        var videoEnd: Int64 = 0, audioEnd: Int64 = 0
        for index in Int64(0)..<90 {
            #expect(timeline.place(stream: 0, start: index * Self.frame, duration: Self.frame) == 0)
            videoEnd = (index + 1) * Self.frame
        }
        var audio: Int64 = 0
        while audio + Self.audioFrame <= videoEnd + lead {
            _ = timeline.place(stream: 1, start: audio, duration: Self.audioFrame)
            audio += Self.audioFrame
            audioEnd = audio
        }
        // Paused for 4 s; the next keyframe comes first, then audio already `lead` ahead of it.
        timeline.resume()
        let keyframe = videoEnd + 4_000_000
        let shift = timeline.place(stream: 0, start: keyframe, duration: Self.frame)!
        #expect(keyframe - shift == videoEnd, "the video goes on where it stopped")
        var nextAudio = (keyframe + lead) / Self.audioFrame * Self.audioFrame
        var placed: Int64?
        while placed == nil {
            if let moved = timeline.place(stream: 1, start: nextAudio, duration: Self.audioFrame) { placed = nextAudio - moved }
            nextAudio += Self.audioFrame
        }
        let hole = placed! - audioEnd
        #expect(hole >= -1_000 && hole < Self.audioFrame, "audio hole \(hole) µs")
    }

    @Test func audioOverlappingWhatWasWrittenIsDropped() {
        var timeline = PauseTimeline(streams: 2, videoStream: 0)
        _ = timeline.place(stream: 0, start: 0, duration: Self.frame)
        _ = timeline.place(stream: 1, start: 0, duration: Self.audioFrame)
        _ = timeline.place(stream: 1, start: Self.audioFrame, duration: Self.audioFrame)
        timeline.resume()
        #expect(timeline.place(stream: 0, start: 1_000_000, duration: Self.frame) == 1_000_000 - Self.frame)
        // 1_000_000 + 0 → 33_333 on the file: before the audio's end (42_666), dropped.
        #expect(timeline.place(stream: 1, start: 1_000_000, duration: Self.audioFrame) == nil)
        #expect(timeline.place(stream: 1, start: 1_000_000 + Self.audioFrame, duration: Self.audioFrame) != nil)
    }

    @Test func anAudioOnlyOutputIsPlacedByItsAudio() {
        var timeline = PauseTimeline(streams: 1, videoStream: nil)
        _ = timeline.place(stream: 0, start: 0, duration: Self.audioFrame)
        timeline.resume()
        #expect(timeline.place(stream: 0, start: 2_000_000, duration: Self.audioFrame) == 2_000_000 - Self.audioFrame)
        #expect(timeline.pausedMicroseconds == 2_000_000 - Self.audioFrame)
    }
}

@Suite struct FirstPictureGateTests {
    static let instants = OutputInstants(fps: 30, toleranceMicroseconds: 1_000)

    @Test func waitsForEveryDrawnInputThenStartsOnTheLatestFirstPicture() {
        let gate = FirstPictureGate()
        #expect(gate.decide(awaited: [0, 1], firstPictures: [0: 380_000], now: 120_000, instants: Self.instants) == .wait)
        // Both pictures there: frame 0 is the first instant at or after the later one (410 ms → frame 13 at 433 ms).
        #expect(gate.decide(awaited: [0, 1], firstPictures: [0: 380_000, 1: 410_000], now: 130_000, instants: Self.instants)
            == .start(frame: 13))
    }

    @Test func anInstantWithinTheToleranceCounts() {
        // A picture at 400.5 ms is drawn at frame 12 (400 ms), as the inputs judge it.
        #expect(FirstPictureGate().decide(awaited: [0], firstPictures: [0: 400_500], now: 10_000, instants: Self.instants)
            == .start(frame: 12))
    }

    @Test func givesUpWaitingAfterTheBound() {
        let gate = FirstPictureGate(boundMicroseconds: 500_000)
        #expect(gate.decide(awaited: [0, 1], firstPictures: [0: 300_000], now: 499_000, instants: Self.instants) == .wait)
        // The input that came is still shown from its first picture; the other is drawn as before.
        #expect(gate.decide(awaited: [0, 1], firstPictures: [0: 300_000], now: 500_000, instants: Self.instants)
            == .start(frame: 15))
    }

    @Test func nothingToWaitForStartsNow() {
        #expect(FirstPictureGate().decide(awaited: [], firstPictures: [:], now: 0, instants: Self.instants) == .start(frame: 0))
        #expect(FirstPictureGate().decide(awaited: [], firstPictures: [:], now: 50_000, instants: Self.instants) == .start(frame: 2))
    }

    @Test func aPictureFarAheadIsNotWaitedFor() {
        let gate = FirstPictureGate(boundMicroseconds: 500_000, maximumLeadMicroseconds: 1_000_000)
        #expect(gate.decide(awaited: [0], firstPictures: [0: 9_000_000], now: 100_000, instants: Self.instants)
            == .start(frame: 33))
    }
}
