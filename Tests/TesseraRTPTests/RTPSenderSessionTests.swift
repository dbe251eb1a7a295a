import Foundation
import Testing
import TesseraRTP

@Suite struct RTPSenderSessionTests {
    static let ssrc: UInt32 = 0x5E4D_0001
    /// NTP at the session's start: second 0xE1234567, half a second; its middle 32 bits are 0x45678000.
    static let startNTP: UInt64 = 0xE123_4567_8000_0000

    static func session(isVideo: Bool = true, jitter: Double = 0) -> RTPSenderSession {
        RTPSenderSession(ssrc: ssrc, clockRate: 90_000, cname: "tessera", isVideo: isVideo, reportJitter: jitter)
    }

    /// NTP `milliseconds` after the start (2³² units a second).
    static func ntp(_ milliseconds: Int) -> UInt64 { startNTP + UInt64(milliseconds) << 32 / 1000 }
    static func seconds(_ milliseconds: Int) -> Double { Double(milliseconds) / 1000 }

    static func tick(_ session: inout RTPSenderSession, at milliseconds: Int) -> [RTPSenderAction] {
        session.tick(now: seconds(milliseconds), ntp: ntp(milliseconds), rtpTimestamp: 1000 + UInt32(milliseconds * 90),
                     packetCount: UInt32(milliseconds), octetCount: UInt32(milliseconds * 100))
    }

    static func receive(_ session: inout RTPSenderSession, _ feedback: RTCPSenderFeedback, at milliseconds: Int) -> [RTPSenderAction] {
        session.received(feedback, now: seconds(milliseconds), ntp: ntp(milliseconds))
    }

    static func reportTimes(_ session: inout RTPSenderSession, from start: Int, to end: Int) -> [Int] {
        (start..<end).filter { time in tick(&session, at: time).contains { if case .send = $0 { true } else { false } } }
    }

    static let pli = RTCPSenderFeedback(pictureLossSSRCs: [ssrc])

    // MARK: - Sender reports

    @Test func reportsAtOnceThenEverySecond() throws {
        var session = Self.session()
        #expect(session.nextDeadline == nil)
        let first = Self.tick(&session, at: 0)
        guard case .send(let datagram) = try #require(first.first) else { Issue.record("no report"); return }
        #expect(datagram == RTCPSenderWriter.senderReport(ssrc: Self.ssrc, ntpTimestamp: Self.startNTP, rtpTimestamp: 1000,
                                                          packetCount: 0, octetCount: 0)
                + RTCPFeedbackWriter.sourceDescription(ssrc: Self.ssrc, cname: "tessera"))
        #expect(RTCPCompound.parse(datagram)?.senderReports.first?.ntpTimestamp == Self.startNTP)
        #expect(session.nextDeadline == 1.0)
        #expect(Self.reportTimes(&session, from: 1, to: 5001) == [1000, 2000, 3000, 4000, 5000])
        #expect(session.statistics.reportsSent == 6)
    }

    @Test func randomisedIntervalsStayWithinHalfToOneAndAHalf() {
        var session = RTPSenderSession(ssrc: Self.ssrc, clockRate: 48_000, cname: "a", isVideo: false, seed: 99)
        let times = Self.reportTimes(&session, from: 0, to: 60_000)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { (500...1500).contains($0) })
        #expect(Set(gaps).count > 10)
        #expect((40...80).contains(times.count))
        // The same seed gives the same times.
        var again = RTPSenderSession(ssrc: Self.ssrc, clockRate: 48_000, cname: "a", isVideo: false, seed: 99)
        #expect(Self.reportTimes(&again, from: 0, to: 60_000) == times)
    }

    @Test func aStallResumesWithoutABurst() {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        #expect(Self.reportTimes(&session, from: 5000, to: 7001) == [5000, 6000, 7000])
    }

    // MARK: - Keyframe requests

    @Test func threePLIsIn200MillisecondsAskTwice() {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        #expect(Self.receive(&session, Self.pli, at: 0) == [.requestKeyframe])
        #expect(Self.receive(&session, Self.pli, at: 100) == [])
        #expect(Self.receive(&session, Self.pli, at: 200) == [])
        #expect(session.nextDeadline == 1.0)
        var requests: [Int] = []
        for time in 201...4000 where Self.tick(&session, at: time).contains(.requestKeyframe) { requests.append(time) }
        #expect(requests == [1000])
        var expected = RTPSenderStatistics()
        expected.reportsSent = 5; expected.pli = 3
        expected.keyframesRequested = 2; expected.keyframesDelayed = 1; expected.keyframeRequestsMerged = 1
        #expect(session.statistics == expected)
    }

    @Test func aPLIAfterTheHoldIsServedAtOnce() {
        var session = Self.session()
        #expect(Self.receive(&session, Self.pli, at: 0) == [.requestKeyframe])
        #expect(Self.receive(&session, Self.pli, at: 999) == [])
        #expect(Self.tick(&session, at: 1000).contains(.requestKeyframe))
        #expect(Self.receive(&session, Self.pli, at: 2000) == [.requestKeyframe])
    }

    @Test func aRepeatedFIRSequenceNumberIsTheSameRequest() {
        var session = Self.session()
        let fir = { (sequence: UInt8) in RTCPSenderFeedback(fullIntraRequests: [RTCPFullIntraRequest(ssrc: Self.ssrc, sequenceNumber: sequence)]) }
        #expect(Self.receive(&session, fir(5), at: 0) == [.requestKeyframe])
        #expect(Self.receive(&session, fir(5), at: 2000) == [])
        #expect(Self.receive(&session, fir(5), at: 4000) == [])
        #expect(Self.receive(&session, fir(6), at: 4000) == [.requestKeyframe])
        #expect(session.statistics.fir == 2 && session.statistics.keyframesRequested == 2)
    }

    @Test func audioCountsPLIButAsksForNothing() {
        var session = Self.session(isVideo: false)
        #expect(Self.receive(&session, Self.pli, at: 0) == [])
        #expect(session.statistics.pli == 1 && session.statistics.keyframesRequested == 0)
    }

    @Test func feedbackAboutAnotherStreamIsIgnored() {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        let other = Self.ssrc + 1
        let feedback = RTCPSenderFeedback(
            reportBlocks: [RTCPReportBlock(ssrc: other, fractionLost: 128, cumulativeLost: 50, highestSequence: 9, jitter: 900,
                                           lastSenderReport: 0x4567_8000, delaySinceLastSenderReport: 0)],
            pictureLossSSRCs: [other], fullIntraRequests: [RTCPFullIntraRequest(ssrc: other, sequenceNumber: 1)],
            nacks: [RTCPGenericNACK(mediaSSRC: other, sequenceNumbers: [1, 2])])
        #expect(Self.receive(&session, feedback, at: 10) == [])
        var expected = RTPSenderStatistics()
        expected.reportsSent = 1
        #expect(session.statistics == expected)
    }

    // MARK: - Receiver statistics

    /// Our SR at NTP middle bits 0x45678000; the receiver held it 0.25 s (DLSR 0x4000) and its RR
    /// reached us 0.3125 s after we sent (0x5000): RTT 0x1000 / 65536 s = 62.5 ms.
    @Test func roundTripFromACraftedReceiverReport() throws {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        let block = RTCPReportBlock(ssrc: Self.ssrc, fractionLost: 64, cumulativeLost: 17, highestSequence: 0x1_0020, jitter: 900,
                                    lastSenderReport: 0x4567_8000, delaySinceLastSenderReport: 0x4000)
        let datagram = RTCPFeedbackWriter.receiverReport(senderSSRC: 0xABCD, blocks: [block])
            + RTCPFeedbackWriter.sourceDescription(ssrc: 0xABCD, cname: "sfu")
        let feedback = try #require(RTCPSenderFeedback.parse(datagram))
        #expect(session.received(feedback, now: 0.3125, ntp: Self.startNTP + 0x5000 << 16) == [])
        let statistics = session.statistics
        #expect(statistics.rttMs == 62.5)
        #expect(statistics.fractionLost == 0.25 && statistics.cumulativeLost == 17 && statistics.jitterMs == 10)
        #expect(statistics.reportsReceived == 1)
    }

    @Test func noRoundTripWithoutAnSROfOurs() {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        for lsr: UInt32 in [0, 0x1234_5678] {
            let block = RTCPReportBlock(ssrc: Self.ssrc, fractionLost: 0, cumulativeLost: 0, highestSequence: 0, jitter: 0,
                                        lastSenderReport: lsr, delaySinceLastSenderReport: 0)
            _ = Self.receive(&session, RTCPSenderFeedback(reportBlocks: [block]), at: 500)
        }
        #expect(session.statistics.rttMs == nil && session.statistics.reportsReceived == 2)
    }

    @Test func countsNACKsForThisStream() {
        var session = Self.session()
        let feedback = RTCPSenderFeedback(nacks: [RTCPGenericNACK(mediaSSRC: Self.ssrc, sequenceNumbers: [4, 5, 7]),
                                                  RTCPGenericNACK(mediaSSRC: 1, sequenceNumbers: [4])])
        #expect(Self.receive(&session, feedback, at: 0) == [])
        #expect(session.statistics.nack == 1 && session.statistics.nackedPackets == 3)
    }

    // MARK: - Stopping

    @Test func goodbyeIsACompoundAndEndsTheSession() throws {
        var session = Self.session()
        _ = Self.tick(&session, at: 0)
        let datagram = session.goodbye()
        let compound = try #require(RTCPCompound.parse(datagram))
        #expect(compound.goodbyeSSRCs == [Self.ssrc])
        #expect(datagram == RTCPFeedbackWriter.receiverReport(senderSSRC: Self.ssrc, blocks: [])
                + RTCPFeedbackWriter.sourceDescription(ssrc: Self.ssrc, cname: "tessera") + RTCPSenderWriter.goodbye(ssrcs: [Self.ssrc]))
        #expect(Self.tick(&session, at: 5000).isEmpty)
        #expect(Self.receive(&session, Self.pli, at: 5000).isEmpty)
        #expect(session.nextDeadline == nil)
    }

    @Test func statisticsRoundTripThroughJSON() throws {
        var statistics = RTPSenderStatistics()
        statistics.pli = 3; statistics.fractionLost = 0.25
        let json = String(decoding: try JSONEncoder().encode(statistics), as: UTF8.self)
        #expect(!json.contains("rttMs"))
        #expect(try JSONDecoder().decode(RTPSenderStatistics.self, from: Data(json.utf8)) == statistics)
        statistics.rttMs = 62.5
        #expect(try JSONDecoder().decode(RTPSenderStatistics.self, from: JSONEncoder().encode(statistics)) == statistics)
    }
}
