import Foundation
import Testing
import TesseraService
import TesseraTask

/// The origin's pure decisions: what a playlist says, the delivery directives, which files are
/// served and how, viewer keys, and held requests resumed by published parts.
@Suite struct HLSOriginTests {
    static let llPlaylist = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:2
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=12.0
        #EXT-X-PART-INF:PART-TARGET=0.33334
        #EXT-X-MEDIA-SEQUENCE:10
        #EXT-X-MAP:URI="room_init.mp4"
        #EXTINF:2.0,
        room_00010.m4s
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.1.m4s"
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.2.m4s"
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.3.m4s"
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.4.m4s"
        #EXT-X-PART:DURATION=0.33334,URI="room_00011.5.m4s"
        #EXTINF:2.0,
        room_00011.m4s
        #EXT-X-PART:DURATION=0.33334,URI="room_00012.0.m4s",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.33334,URI="room_00012.1.m4s"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="room_00012.2.m4s"

        """

    static let classic = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:0
        #EXTINF:2.0,
        room_00000.m4s
        #EXTINF:2.0,
        room_00001.m4s

        """

    // MARK: HLSPlaylistSummary

    @Test func anLLHLSPlaylistSaysHowFarItHasGot() {
        let summary = HLSPlaylistSummary(text: Self.llPlaylist)
        #expect(summary.targetDuration == 2)
        #expect(summary.partTarget == 0.33334)
        #expect(summary.canBlockReload)
        #expect(summary.canSkipUntil == 12)
        #expect(summary.lastSegment == 11)
        #expect(summary.lastPart == HLSPartPosition(msn: 12, part: 1))
        #expect(summary.preloadHint == "room_00012.2.m4s")
        #expect(summary.newestMSN == 12)
        #expect(!summary.ended)
    }

    @Test func aClassicPlaylistOffersNoBlockingAndADeltaCountsSkippedSegments() {
        let classic = HLSPlaylistSummary(text: Self.classic)
        #expect(!classic.canBlockReload && classic.canSkipUntil == nil && classic.partTarget == nil)
        #expect(classic.lastSegment == 1 && classic.lastPart == nil)
        let delta = HLSPlaylistSummary(text: """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-SKIP:SKIPPED-SEGMENTS=5
            #EXTINF:2.0,
            room_00105.m4s
            #EXT-X-ENDLIST
            """)
        #expect(delta.lastSegment == 105)
        #expect(delta.ended)
    }

    // MARK: HLSBlockingRequest

    static func parse(_ pairs: [(String, String)]) -> Result<HLSBlockingRequest, HLSRequestRefusal> {
        HLSBlockingRequest.parse(pairs.map { (name: $0.0, value: $0.1) })
    }

    @Test func directivesAreReadAndOthersIgnored() throws {
        let request = try Self.parse([("_HLS_msn", "12"), ("_HLS_part", "3"), ("_HLS_skip", "YES"), ("cdn", "x")]).get()
        #expect(request == HLSBlockingRequest(msn: 12, part: 3, skip: .yes))
        #expect(try Self.parse([("_HLS_skip", "v2")]).get().skip == .v2)
        #expect(try Self.parse([]).get() == HLSBlockingRequest())
    }

    @Test(arguments: [
        [("_HLS_part", "2")],
        [("_HLS_msn", "-1")],
        [("_HLS_msn", "x")],
        [("_HLS_msn", "3"), ("_HLS_part", "1.5")],
        [("_HLS_skip", "yes")],
        [("_HLS_msn", "+3")],
        [("_HLS_msn", "1e3")],
        [("_HLS_msn", " 3")],
        [("_HLS_msn", "")],
        [("_HLS_msn", "9223372036854775807"), ("_HLS_part", "0")],
        [("_HLS_msn", "3"), ("_HLS_part", "9223372036854775807")],
        [("_HLS_msn", "1000000000")],
        [("_HLS_msn", "3"), ("_HLS_msn", "4")],
        [("_HLS_msn", "٣")],
    ])
    func invalidDirectivesAreRefused(pairs: [(String, String)]) {
        guard case .failure = Self.parse(pairs) else { Issue.record("accepted \(pairs)"); return }
    }

    @Test func aRefusalNamesTheParameterAndTheValueShortened() throws {
        guard case .failure(let refusal) = Self.parse([("_HLS_msn", String(repeating: "9", count: 40))]) else {
            Issue.record("accepted"); return
        }
        #expect(refusal.message == "_HLS_msn must be a whole number from 0 to 999999999, not \"999999999999999999999999…\"")
        guard case .failure(let part) = Self.parse([("_HLS_msn", "1"), ("_HLS_part", "x")]) else { Issue.record("accepted"); return }
        #expect(part.message.hasPrefix("_HLS_part "))
        guard case .failure(let twice) = Self.parse([("_HLS_skip", "YES"), ("_HLS_skip", "YES")]) else { Issue.record("accepted"); return }
        #expect(twice.message == "_HLS_skip is given more than once")
        // Another `_HLS_` name (a later edition's directive) is left alone, as are a CDN's.
        #expect(try Self.parse([("_HLS_future", "1"), ("token", "a b")]).get() == HLSBlockingRequest())
        // The largest number accepted is decided on without overflow.
        let summary = HLSPlaylistSummary(text: Self.llPlaylist)
        guard case .refuse = HLSBlockingRequest(msn: 12, part: 999_999_999).decide(summary) else { Issue.record("held"); return }
        guard case .refuse = HLSBlockingRequest(msn: 999_999_999, part: 999_999_999).decide(summary) else { Issue.record("held"); return }
    }

    @Test func anEndedPlaylistAnswersAtOnceHoweverFarAheadTheRequestAsks() {
        let ended = HLSPlaylistSummary(text: Self.llPlaylist + "#EXT-X-ENDLIST\n")
        #expect(HLSBlockingRequest(msn: 99, part: 0).decide(ended) == .answer(delta: false, blocking: true))
        #expect(HLSBlockingRequest(msn: 13, part: 50, skip: .yes).decide(ended) == .answer(delta: true, blocking: true))
    }

    @Test func aPartAlreadyListedIsAnsweredAtOnce() {
        let summary = HLSPlaylistSummary(text: Self.llPlaylist)
        #expect(HLSBlockingRequest(msn: 12, part: 1).decide(summary) == .answer(delta: false, blocking: true))
        #expect(HLSBlockingRequest(msn: 11, part: 5).decide(summary) == .answer(delta: false, blocking: true))
        // A whole segment listed: every part of it exists.
        #expect(HLSBlockingRequest(msn: 11, part: 9).decide(summary) == .answer(delta: false, blocking: true))
        #expect(HLSBlockingRequest(msn: 11).decide(summary) == .answer(delta: false, blocking: true))
        #expect(HLSBlockingRequest(msn: 11, skip: .yes).decide(summary) == .answer(delta: true, blocking: true))
    }

    @Test func theNextPartOrSegmentIsHeldForThreeTargetDurations() {
        let summary = HLSPlaylistSummary(text: Self.llPlaylist)
        #expect(HLSBlockingRequest(msn: 12, part: 2).decide(summary)
                == .hold(until: .part(HLSPartPosition(msn: 12, part: 2)), timeoutSeconds: 6, delta: false))
        #expect(HLSBlockingRequest(msn: 12, skip: .v2).decide(summary) == .hold(until: .segment(12), timeoutSeconds: 6, delta: true))
        #expect(HLSBlockingRequest(msn: 13, part: 0).decide(summary)
                == .hold(until: .part(HLSPartPosition(msn: 13, part: 0)), timeoutSeconds: 6, delta: false))
    }

    @Test func tooFarAheadIsABadRequest() {
        let summary = HLSPlaylistSummary(text: Self.llPlaylist)
        // Two segments past the newest (12) is allowed; three is not.
        if case .refuse = HLSBlockingRequest(msn: 14).decide(summary) { Issue.record("msn 14 refused") }
        guard case .refuse = HLSBlockingRequest(msn: 15).decide(summary) else { Issue.record("msn 15 held"); return }
        // Parts of a third of a second: nine parts (three seconds) ahead at most.
        #expect(HLSBlockingRequest.advancePartLimit(partTarget: 0.33334) == 9)
        #expect(HLSBlockingRequest.advancePartLimit(partTarget: 1.5) == 3)
        if case .refuse = HLSBlockingRequest(msn: 12, part: 10).decide(summary) { Issue.record("part 10 refused") }
        guard case .refuse = HLSBlockingRequest(msn: 12, part: 11).decide(summary) else { Issue.record("part 11 held"); return }
    }

    /// Numbers read back from a playlist never reach a hold's arithmetic as an infinity or an
    /// overflow (the fuzz target hls_origin holds this for any playlist).
    @Test func outlandishNumbersInAPlaylistAreNotRead() {
        let summary = HLSPlaylistSummary(text: """
            #EXTM3U
            #EXT-X-TARGETDURATION:inf
            #EXT-X-PART-INF:PART-TARGET=1e-300
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=nan
            #EXT-X-MEDIA-SEQUENCE:9223372036854775807
            #EXT-X-SKIP:SKIPPED-SEGMENTS=9223372036854775807
            #EXTINF:1,
            room_00000.m4s
            """)
        #expect(summary.targetDuration == 0 && summary.canSkipUntil == nil)
        #expect(summary.lastSegment == 0)
        #expect(HLSBlockingRequest.advancePartLimit(partTarget: 1e-300) == 3)
        #expect(HLSBlockingRequest.timeoutSeconds(summary) == 1)
    }

    @Test func aClassicPlaylistIgnoresTheDirectivesAndAnEndedOneAnswers() {
        #expect(HLSBlockingRequest(msn: 5, part: 0, skip: .yes).decide(HLSPlaylistSummary(text: Self.classic))
                == .answer(delta: false, blocking: false))
        let ended = HLSPlaylistSummary(text: Self.llPlaylist + "#EXT-X-ENDLIST\n")
        #expect(HLSBlockingRequest(msn: 13).decide(ended) == .answer(delta: false, blocking: true))
        #expect(HLSBlockingRequest(skip: .yes).decide(HLSPlaylistSummary(text: Self.llPlaylist)) == .answer(delta: true, blocking: false))
    }

    @Test func awaitedPartsAndSegmentsAreReachedInPlaylistOrder() {
        let part = HLSBlockingRequest.Awaited.part(HLSPartPosition(msn: 12, part: 2))
        #expect(!part.isReached(by: HLSPartPosition(msn: 12, part: 1)))
        #expect(part.isReached(by: HLSPartPosition(msn: 12, part: 2)))
        #expect(part.isReached(by: HLSPartPosition(msn: 13, part: 0)))
        let segment = HLSBlockingRequest.Awaited.segment(12)
        #expect(!segment.isReached(by: HLSPartPosition(msn: 12, part: 5)))
        #expect(segment.isReached(by: HLSPartPosition(msn: 13, part: 0)))
    }

    // MARK: Viewer keys

    @Test func generatedKeysAreLongURLSafeAndDistinct() {
        let keys = (0..<50).map { _ in HLSViewerKeys.generate() }
        #expect(Set(keys).count == keys.count)
        for key in keys {
            #expect(key.count == 32)
            #expect(key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    static func plan(_ outputs: [ResolvedOutput]) -> ResolvedTask {
        ResolvedTask(taskId: "t", mode: .mix, pace: .realtime, maxDurationSeconds: nil, idleTimeoutSeconds: 30, callbackUrl: nil,
                     inputs: [], video: nil, audio: AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 128, codec: "aac"),
                     layout: nil, audioMix: AudioMixPlan(gains: []), outputs: outputs)
    }

    @Test func everyHLSOutputWithoutAKeyGetsOneAndGivenOrEarlierKeysStay() throws {
        let hls = ResolvedOutput(url: "live/room.m3u8", kind: .hls(HLSSettings(playlist: "/out/live/room.m3u8", overHTTP: false)))
        let given = ResolvedOutput(url: "live/b.m3u8", kind: .hls(HLSSettings(playlist: "/out/live/b.m3u8", overHTTP: false)))
        let file = ResolvedOutput(url: "rec.mp4", kind: .file(path: "/out/rec.mp4", container: .mp4))
        let plan = Self.plan([hls, given, file])
        let document = try JSONValue.parse(Data("""
            {"outputs": [{"url": "live/room.m3u8"}, {"url": "live/b.m3u8", "hls": {"viewerKey": "given-key-0123456789"}},
                         {"url": "rec.mp4"}]}
            """.utf8))
        let keyed = HLSViewerKeys.assigning(document, plan: plan, generate: { "generated-key-000000" })
        #expect(HLSViewerKeys.keys(in: keyed) == ["live/room.m3u8": "generated-key-000000", "live/b.m3u8": "given-key-0123456789"])
        // An update restating the output without its key keeps the earlier one.
        let again = HLSViewerKeys.assigning(document, plan: plan, previous: ["live/room.m3u8": "earlier-key-00000000"],
                                            generate: { "generated-key-000000" })
        #expect(HLSViewerKeys.keys(in: again)["live/room.m3u8"] == "earlier-key-00000000")
        let served = HLSOriginOutput.list(runPlan: plan, document: keyed)
        #expect(served.map(\.playlistPath) == ["/out/live/room.m3u8", "/out/live/b.m3u8"])
        #expect(served[0].playbackPath(taskId: "t 1") == "/v1/tasks/t%201/hls/generated-key-000000/room.m3u8")
    }

    // MARK: HLSEndedOrigins

    @Test func anEndedTasksOriginIsKeptForAWhileTheNewestFirst() {
        let ended = HLSEndedOrigins(keepSeconds: 600, capacity: 2)
        func origin(_ id: String, outputs: Int = 1) -> HLSOriginTask {
            HLSOriginTask(taskId: id, outputs: (0..<outputs).map { _ in
                HLSOriginOutput(url: "a.m3u8", playlistPath: "/out/a.m3u8", viewerKey: "k") }, board: HLSProgressBoard())
        }
        ended.keep(origin("a"), now: 0)
        #expect(ended.origin("a", now: 599)?.taskId == "a")
        #expect(ended.origin("a", now: 600) == nil)
        // No HLS output served: nothing to keep.
        ended.keep(origin("none", outputs: 0), now: 0)
        #expect(ended.origin("none", now: 1) == nil)
        // At most `capacity`: the oldest goes.
        ended.keep(origin("b"), now: 10)
        ended.keep(origin("c"), now: 20)
        ended.keep(origin("d"), now: 30)
        #expect(ended.origin("b", now: 31) == nil)
        #expect(ended.origin("c", now: 31)?.taskId == "c" && ended.origin("d", now: 31)?.taskId == "d")
    }

    // MARK: HLSProgressBoard

    @Test func aHeldRequestIsResumedByThePartItWaitsFor() async {
        let board = HLSProgressBoard()
        board.publish(playlist: "/out/room.m3u8", position: HLSPartPosition(msn: 12, part: 1))
        #expect(await board.wait(playlist: "/out/./room.m3u8", for: .part(HLSPartPosition(msn: 12, part: 1)), timeoutSeconds: 5))
        let started = MonotonicClock.seconds
        // A long time-out: the wait must end by the publish, not by the clock (a loaded CI machine
        // may take a second or two to schedule the tasks).
        async let reached = board.wait(playlist: "/out/room.m3u8", for: .part(HLSPartPosition(msn: 12, part: 2)), timeoutSeconds: 60)
        try? await Task.sleep(for: .milliseconds(50))
        board.publish(playlist: "/out/other.m3u8", position: HLSPartPosition(msn: 99, part: 0))
        board.publish(playlist: "/out/room.m3u8", position: HLSPartPosition(msn: 12, part: 2))
        #expect(await reached)
        #expect(MonotonicClock.seconds - started < 30)
    }

    @Test func aHeldRequestTimesOutOrIsAnsweredWhenTheWorkerExits() async {
        let board = HLSProgressBoard()
        #expect(await !board.wait(playlist: "/out/room.m3u8", for: .segment(3), timeoutSeconds: 0.05))
        async let woken = board.wait(playlist: "/out/room.m3u8", for: .segment(3), timeoutSeconds: 5)
        try? await Task.sleep(for: .milliseconds(50))
        board.wakeAll()
        #expect(await woken)
        #expect(board.newest(playlist: "/out/room.m3u8") == nil)
    }
}
