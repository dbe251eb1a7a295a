import Testing
import TesseraRTP

@Suite struct ParticipantClockTests {
    /// A sender whose wall clock reads `ntpStartMicroseconds` at its instant 0, and whose packets
    /// reach us `delay` µs after they leave; our clock reads `localStart` at the sender's instant 0.
    struct Sender {
        var ntpStartMicroseconds: Int64 = 3_900_000_000 * 1_000_000
        var localStart: Int64 = 7_000_000
        var videoStart: UInt32
        var audioStart: UInt32
        var videoDelay: Int64 = 20_000
        var audioDelay: Int64 = 100_000

        func timestamp(_ kind: RTPMediaKind, at instant: Int64) -> UInt32 {
            kind == .video ? videoStart &+ UInt32(truncatingIfNeeded: instant * 90 / 1000)
                : audioStart &+ UInt32(truncatingIfNeeded: instant * 48 / 1000)
        }

        func arrival(_ kind: RTPMediaKind, at instant: Int64) -> Int64 {
            localStart + instant + (kind == .video ? videoDelay : audioDelay)
        }

        func report(_ kind: RTPMediaKind, at instant: Int64) -> RTCPSenderReport {
            let ntp = ntpStartMicroseconds + instant
            let seconds = UInt64(ntp / 1_000_000), fraction = UInt64(ntp % 1_000_000) << 32 / 1_000_000
            return RTCPSenderReport(ssrc: kind == .video ? 1 : 2, ntpTimestamp: seconds << 32 | fraction,
                                    rtpTimestamp: timestamp(kind, at: instant))
        }

        func present(_ clock: inout ParticipantClock, _ kind: RTPMediaKind, at instant: Int64) -> Int64 {
            clock.presentationMicroseconds(kind: kind, ssrc: kind == .video ? 1 : 2, rtpTimestamp: timestamp(kind, at: instant),
                                           clockRate: kind == .video ? 90000 : 48000, arrivalMicroseconds: arrival(kind, at: instant))
        }
    }

    /// Over three years from its anchor (10¹³ ticks at 90 kHz) a stream still maps exactly:
    /// `ticks × 10⁶` on its own would have overflowed 64 bits after 3.2 years.
    @Test func aStreamYearsLongStillMapsExactly() {
        var clock = ParticipantClock()
        let step: Int64 = 10_000 * 90_000  // 10,000 s per packet, under the 2³¹ extension window
        var mismatches = 0
        for index: Int64 in 0...11_000 {
            let arrival = 5_000_000 + index * 10_000 * 1_000_000
            let presented = clock.presentationMicroseconds(kind: .video, ssrc: 9, rtpTimestamp: UInt32(truncatingIfNeeded: 77 + index * step),
                                                          clockRate: 90000, arrivalMicroseconds: arrival)
            if presented != arrival { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test(arguments: [(UInt32(0x1234_5678), UInt32(0x9ABC_DEF0)), (0xFFFF_0000, 17), (3, 0xFFFF_FFF0)])
    func senderReportsBringAudioAndVideoTogether(videoStart: UInt32, audioStart: UInt32) {
        let sender = Sender(videoStart: videoStart, audioStart: audioStart)
        var clock = ParticipantClock()
        // Packets from the sender's instant 0 on: video every 33 ms, audio every 20 ms.
        var videoBeforeReport: Int64 = 0
        for instant in stride(from: Int64(0), through: 990_000, by: 33_000) {
            videoBeforeReport = sender.present(&clock, .video, at: instant)
        }
        for instant in stride(from: Int64(0), through: 1_000_000, by: 20_000) { _ = sender.present(&clock, .audio, at: instant) }
        // Anchored on arrival, audio lags video by the 80 ms its first packet was later.
        let videoAt = sender.present(&clock, .video, at: 1_000_000)
        let audioAt = sender.present(&clock, .audio, at: 1_000_000)
        #expect(abs(audioAt - videoAt - 80_000) <= 1)
        #expect(!clock.synchronizedBySenderReports)

        clock.noteSenderReport(sender.report(.video, at: 1_000_000), kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 1_000_000))
        #expect(clock.synchronizedBySenderReports)
        // The first report does not move the stream it belongs to.
        #expect(abs(sender.present(&clock, .video, at: 1_000_000) - videoAt) <= 1)
        #expect(videoBeforeReport < videoAt)
        clock.noteSenderReport(sender.report(.audio, at: 1_200_000), kind: .audio, arrivalMicroseconds: sender.arrival(.audio, at: 1_200_000))

        for instant in stride(from: Int64(1_300_000), through: 3_000_000, by: 100_000) {
            let video = sender.present(&clock, .video, at: instant)
            let audio = sender.present(&clock, .audio, at: instant)
            #expect(abs(video - audio) <= 1000, "at \(instant): video \(video), audio \(audio)")
        }
    }

    /// Senders send their first SR with their first packet, before anything is decoded: it is
    /// kept, so audio and video are in sync from the first frame, not from the next SR seconds later.
    @Test func reportsBeforeTheFirstPacketSyncFromTheStart() {
        let sender = Sender(videoStart: 0x7000_0000, audioStart: 0xFFFF_FF00)
        var clock = ParticipantClock()
        clock.noteSenderReport(sender.report(.video, at: 0), kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        clock.noteSenderReport(sender.report(.audio, at: 0), kind: .audio, arrivalMicroseconds: sender.arrival(.audio, at: 0))
        #expect(!clock.synchronizedBySenderReports)
        // The first decoded video frame comes half a second in (a late keyframe).
        for instant in stride(from: Int64(500_000), through: 1_500_000, by: 100_000) {
            let video = sender.present(&clock, .video, at: instant)
            let audio = sender.present(&clock, .audio, at: instant)
            #expect(abs(video - audio) <= 1000, "at \(instant): video \(video), audio \(audio)")
        }
        #expect(clock.synchronizedBySenderReports)
    }

    /// A held report is only ever applied to the stream of its own SSRC.
    @Test func aHeldReportOfAnotherSenderIsNotApplied() {
        let sender = Sender(videoStart: 500, audioStart: 900)
        var clock = ParticipantClock()
        var stranger = sender.report(.video, at: 0)
        stranger.ssrc = 77
        clock.noteSenderReport(stranger, kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        #expect(sender.present(&clock, .video, at: 0) == sender.arrival(.video, at: 0))
        #expect(!clock.synchronizedBySenderReports)
    }

    @Test func beforeAnyReportTimeFollowsTheFirstArrival() {
        var clock = ParticipantClock()
        #expect(clock.presentationMicroseconds(kind: .audio, ssrc: 9, rtpTimestamp: 0xFFFF_FF00, clockRate: 48000,
                                               arrivalMicroseconds: 1_000_000) == 1_000_000)
        // 512 ticks later across the 32-bit wrap, arriving with some jitter: 10.666 ms after the first.
        #expect(clock.presentationMicroseconds(kind: .audio, ssrc: 9, rtpTimestamp: 0x100, clockRate: 48000,
                                               arrivalMicroseconds: 1_015_000) == 1_010_666)
        // A step back (reordering) maps before, not 24 hours ahead.
        #expect(clock.presentationMicroseconds(kind: .audio, ssrc: 9, rtpTimestamp: 0xFFFF_FF00 &+ 480, clockRate: 48000,
                                               arrivalMicroseconds: 1_016_000) == 1_010_000)
    }

    @Test func aNewSSRCOrAClockJumpReanchors() {
        var clock = ParticipantClock(maxDriftMicroseconds: 500_000)
        _ = clock.presentationMicroseconds(kind: .video, ssrc: 1, rtpTimestamp: 1000, clockRate: 90000, arrivalMicroseconds: 0)
        #expect(clock.presentationMicroseconds(kind: .video, ssrc: 2, rtpTimestamp: 90000, clockRate: 90000,
                                               arrivalMicroseconds: 40_000) == 40_000)
        // 10 s of timestamps in 33 ms: the sender's clock jumped.
        #expect(clock.presentationMicroseconds(kind: .video, ssrc: 2, rtpTimestamp: 990_000, clockRate: 90000,
                                               arrivalMicroseconds: 73_000) == 73_000)
        #expect(clock.presentationMicroseconds(kind: .video, ssrc: 2, rtpTimestamp: 993_000, clockRate: 90000,
                                               arrivalMicroseconds: 110_000) == 106_333)
    }

    @Test func bogusReportsAreIgnored() {
        let sender = Sender(videoStart: 500, audioStart: 900)
        var clock = ParticipantClock()
        let first = sender.present(&clock, .video, at: 0)
        // An RTP timestamp an hour away from the stream's: garbage.
        var garbage = sender.report(.video, at: 0)
        garbage.rtpTimestamp &+= 90000 * 3600
        clock.noteSenderReport(garbage, kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        // Another SSRC, and a stream that has not started: nothing to map.
        var stranger = sender.report(.video, at: 0)
        stranger.ssrc = 77
        clock.noteSenderReport(stranger, kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        clock.noteSenderReport(sender.report(.audio, at: 0), kind: .audio, arrivalMicroseconds: sender.arrival(.audio, at: 0))
        #expect(!clock.synchronizedBySenderReports)
        clock.noteSenderReport(sender.report(.video, at: 0), kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        #expect(clock.synchronizedBySenderReports)
        // With the offset fixed, a report whose wall clock is 10 s off is refused.
        var jumped = sender.report(.video, at: 40_000)
        jumped.ntpTimestamp += 10 << 32
        clock.noteSenderReport(jumped, kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 40_000))
        #expect(sender.present(&clock, .video, at: 40_000) == first + 40_000)
    }

    @Test func resetForgetsTheStream() {
        let sender = Sender(videoStart: 500, audioStart: 900)
        var clock = ParticipantClock()
        _ = sender.present(&clock, .video, at: 0)
        clock.noteSenderReport(sender.report(.video, at: 0), kind: .video, arrivalMicroseconds: sender.arrival(.video, at: 0))
        clock.reset(kind: .video)
        #expect(!clock.synchronizedBySenderReports)
        #expect(sender.present(&clock, .video, at: 500_000) == sender.arrival(.video, at: 500_000))
    }
}

@Suite struct ParticipantClockDriftTests {
    /// A sender 0.2 % slow for 5 minutes: audio steers, video follows the same ratio, so both keep
    /// their delay and stay together (the slow sender lost its voice after 330 s).
    @Test func aSlowSendersAudioAndVideoKeepTheirDelayTogether() {
        var clock = ParticipantClock()
        let rate = 0.998
        var worstDelay: Int64 = 0, worstSync: Int64 = 0
        var startDelay: (audio: Int64, video: Int64)?
        for instant in stride(from: Int64(0), through: 300_000_000, by: 20_000) {
            let real = Int64(Double(instant) / rate)
            let audio = clock.presentationMicroseconds(kind: .audio, ssrc: 2, rtpTimestamp: UInt32(truncatingIfNeeded: 9_000 + instant * 48 / 1000),
                                                       clockRate: 48000, arrivalMicroseconds: 1_000_000 + real + 30_000)
            // A picture at every 40 ms, at the same sender instant as an audio frame.
            guard instant % 40_000 == 0 else { continue }
            let video = clock.presentationMicroseconds(kind: .video, ssrc: 1, rtpTimestamp: UInt32(truncatingIfNeeded: 5_000 + instant * 90 / 1000),
                                                       clockRate: 90000, arrivalMicroseconds: 1_000_000 + real + 10_000)
            let delays = (audio: 1_000_000 + real - audio, video: 1_000_000 + real - video)
            let start = startDelay ?? delays
            startDelay = start
            worstDelay = max(worstDelay, abs(delays.audio - start.audio), abs(delays.video - start.video))
            worstSync = max(worstSync, abs((video - audio) - (start.audio - start.video)))
        }
        #expect(worstDelay < 10_000)
        #expect(worstSync < 1_000)
        #expect(abs(clock.driftCorrectionPpm - 2004) < 50)
        #expect(clock.jumps == 0)
    }

    /// The sender stops for 2 s and goes on where it stopped (both streams): one re-placement of
    /// the participant, not one per stream, and video lands with its audio again.
    @Test func aStallOfBothStreamsIsOneJump() {
        var clock = ParticipantClock()
        var lastSync: Int64 = 0, firstSync: Int64?
        for instant in stride(from: Int64(0), through: 60_000_000, by: 20_000) {
            let arrival = 1_000_000 + instant + (instant >= 30_000_000 ? 2_000_000 : 0)
            let audio = clock.presentationMicroseconds(kind: .audio, ssrc: 2, rtpTimestamp: UInt32(truncatingIfNeeded: instant * 48 / 1000),
                                                       clockRate: 48000, arrivalMicroseconds: arrival + 30_000)
            guard instant % 40_000 == 0 else { continue }
            let video = clock.presentationMicroseconds(kind: .video, ssrc: 1, rtpTimestamp: UInt32(truncatingIfNeeded: instant * 90 / 1000),
                                                       clockRate: 90000, arrivalMicroseconds: arrival + 10_000)
            lastSync = video - audio
            firstSync = firstSync ?? lastSync
        }
        #expect(clock.jumps == 1)
        #expect(abs(lastSync - (firstSync ?? 0)) < 1_000)
    }
}
