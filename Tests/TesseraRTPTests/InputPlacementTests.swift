import Testing
import TesseraRTP

/// The one rule that places a live input's media on the output timeline and moves it: placed the
/// latency ahead at a connection's first media; pulled earlier at once when real-time media runs
/// more than 30 ms further ahead; pushed ahead again once it has stayed behind the output 300 ms.
@Suite struct InputPlacementTests {
    /// A live RTP-like input at task clock `now`, latency 200 ms: media is due at now + 200 ms.
    static func connected(realTime: Bool = true) -> InputPlacement {
        var placement = InputPlacement(startAtMicroseconds: 0, live: true)
        placement.connected(arrivesInRealTime: realTime)
        return placement
    }

    @Test func offlineMediaKeepsTheInputsStart() {
        var placement = InputPlacement(startAtMicroseconds: 500_000, live: false)
        #expect(placement.place(40_000, earliest: 9_000_000, now: 8_000_000) == (540_000, .kept))
    }

    @Test func aConnectionsFirstMediaLandsWhereItIsDue() {
        var placement = Self.connected()
        #expect(placement.place(7_000_000, earliest: 1_200_000, now: 1_000_000) == (1_200_000, .placed))
        // The next media follows on the input's own clock.
        #expect(placement.place(7_020_000, earliest: 1_220_000, now: 1_020_000) == (1_220_000, .kept))
        #expect(placement.offsetMicroseconds == 1_200_000 - 7_000_000)
    }

    @Test func jitterWithinTheSlackDoesNotMoveTheInput() {
        var placement = Self.connected()
        _ = placement.place(0, earliest: 200_000, now: 0)
        // Media 30 ms ahead of where it is due (it came 30 ms late at first): kept.
        #expect(placement.place(100_000, earliest: 270_000, now: 70_000) == (300_000, .kept))
    }

    /// A first packet that came late (a burst after a stall) must not keep the whole call late.
    @Test func mediaFurtherAheadThanTheSlackPullsTheInputEarlier() {
        var placement = Self.connected()
        _ = placement.place(0, earliest: 200_000, now: 0)
        #expect(placement.place(100_000, earliest: 231_000, now: 31_000) == (231_000, .pulledEarlier))
        // And it stays there.
        #expect(placement.place(120_000, earliest: 251_000, now: 51_000) == (251_000, .kept))
    }

    /// Media behind the output is pushed ahead only once it has stayed behind for 300 ms.
    @Test func mediaStayingBehindTheOutputIsPushedAheadAfter300ms() {
        var placement = Self.connected()
        _ = placement.place(0, earliest: 200_000, now: 0)
        // The sender's mapping moved back by a second: everything lands behind `now`.
        let behind: Int64 = -1_000_000
        #expect(placement.place(1_000_000 + behind, earliest: 1_200_000, now: 1_000_000) == (200_000, .kept))
        #expect(placement.place(1_299_000 + behind, earliest: 1_499_000, now: 1_299_000) == (499_000, .kept))
        #expect(placement.place(1_300_000 + behind, earliest: 1_500_000, now: 1_300_000) == (1_500_000, .pushedLater))
        #expect(placement.place(1_320_000 + behind, earliest: 1_520_000, now: 1_320_000) == (1_520_000, .kept))
    }

    /// One late piece of media is jitter: back on time, the clock of lateness starts again.
    @Test func oneLateFrameIsNotAJump() {
        var placement = Self.connected()
        _ = placement.place(0, earliest: 200_000, now: 0)
        #expect(placement.place(100_000, earliest: 500_000, now: 300_001).move == .kept)
        #expect(placement.place(500_000, earliest: 800_000, now: 600_000).move == .kept)
        #expect(placement.place(700_000, earliest: 1_000_000, now: 800_000).move == .kept)
        #expect(placement.place(200_000, earliest: 1_000_000, now: 800_000).move == .kept)
    }

    /// Media read at its own pace (files, pull URLs) is held back by its reader, never moved.
    @Test func pacedMediaIsOnlyPlaced() {
        var placement = Self.connected(realTime: false)
        _ = placement.place(0, earliest: 200_000, now: 0)
        #expect(placement.place(5_000_000, earliest: 200_000, now: 0) == (5_200_000, .kept))
        #expect(placement.place(0, earliest: 9_000_000, now: 8_000_000) == (200_000, .kept))
    }

    @Test func aReconnectionPlacesAfresh() {
        var placement = Self.connected()
        _ = placement.place(0, earliest: 200_000, now: 0)
        placement.connected(arrivesInRealTime: true)
        #expect(placement.place(90_000_000, earliest: 5_200_000, now: 5_000_000) == (5_200_000, .placed))
    }

    @Test(arguments: [
        (0, 0, InputPlacement.Deviation.within), (1_000, 0, .within), (1_001, 0, .ahead(1_001)),
        (-2_000, 0, .within), (-2_001, 0, .behind(2_001)),
    ] as [(Int64, Int64, InputPlacement.Deviation)])
    func deviationJudgesBothSidesByTheirTolerance(placed: Int64, due: Int64, expected: InputPlacement.Deviation) {
        #expect(InputPlacement.deviation(placed: placed, due: due, aheadTolerance: 1_000, behindTolerance: 2_000) == expected)
    }
}
