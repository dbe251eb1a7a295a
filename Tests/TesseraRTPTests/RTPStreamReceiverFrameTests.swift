import Testing
import TesseraComposition
import TesseraRTP

/// The frames a stream receiver hands the decoder, and its keyframe gate: what the decoder
/// says of one frame acts before the next is depacketized.
@Suite struct RTPStreamReceiverFrameTests {
    typealias H = ReceiverHarness

    @Test func videoWaitsForAKeyframeFromItsFirstPacketAndIsLiveOnceOneDecodes() {
        var h = H.video()
        #expect(h.receiver.mediumState(nowMicroseconds: 0) == .noPackets)
        h.send(H.vp8(1, keyframe: false), at: 0)
        #expect(h.drain(at: 0).isEmpty)
        #expect(h.receiver.awaitingKeyframe)
        #expect(h.receiver.rtcp.keyframes.pending == .start)
        #expect(h.receiver.mediumState(nowMicroseconds: 1000) == .waitingForKeyframe)
        h.send(H.vp8(2, keyframe: true), at: 33_000)
        #expect(H.summary(h.drain(at: 33_000)) == ["2k"])
        #expect(!h.receiver.awaitingKeyframe)
        #expect(h.receiver.mediumState(nowMicroseconds: 34_000) == .live)
        #expect(h.receiver.mediumState(nowMicroseconds: 2_033_000) == .noPackets)
    }

    @Test func aKeyframeTheDecoderRefusedDoesNotOpenTheGate() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        let actions = h.drain(at: 0, decodes: false)
        #expect(H.summary(actions) == ["1k"])
        h.receiver.decodeFailed(nowMicroseconds: 0)
        #expect(h.receiver.awaitingKeyframe)
        #expect(h.receiver.mediumState(nowMicroseconds: 0) == .waitingForKeyframe)
    }

    @Test func aDecodeErrorDropsTheDeltaFramesAfterItUntilTheNextKeyframeAndAsksForOne() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        #expect(H.summary(h.drain(at: 0)) == ["1k"])
        h.send(H.vp8(2, keyframe: false), at: 33_000)
        guard case .decode? = h.receiver.nextAction(nowMicroseconds: 33_000) else { Issue.record("no frame"); return }
        h.receiver.decodeFailed(nowMicroseconds: 33_000)
        #expect(h.receiver.rtcp.keyframes.pending == .decodeError)
        h.send(H.vp8(3, keyframe: false), at: 66_000)
        h.send(H.vp8(4, keyframe: true), at: 99_000)
        #expect(H.summary(h.drain(at: 99_000)) == ["4k"])
        #expect(h.receiver.rtcp.keyframes.pending == nil)
    }

    @Test func aLossAsksForAKeyframeOnceItsHoleExpires() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        #expect(H.summary(h.drain(at: 0)) == ["1k"])
        h.send(H.vp8(3, keyframe: false), at: 10_000)
        #expect(h.drain(at: 10_000).isEmpty)
        #expect(h.receiver.nextDeadlineMicroseconds == 60_000)
        h.receiver.expire(nowMicroseconds: 60_000)
        #expect(h.drain(at: 60_000).isEmpty)
        #expect(h.receiver.rtcp.keyframes.pending == .referenceLost)
        let feedback = h.receiver.feedback(nowMicroseconds: 60_000)
        #expect(feedback.map { H.rtcpTypes($0.datagram) } == ["201", "202", "206.1"])
        var counters = PacketCounters()
        h.receiver.count(into: &counters)
        #expect((counters.received, counters.lost) == (2, 1))
    }

    @Test func nackedHolesAreNamedWhileTheyCanStillBeFilled() {
        var h = H.video(feedback: [.nack, .pli])
        h.send(H.vp8(1, keyframe: true), at: 0)
        _ = h.drain(at: 0)
        h.send(H.vp8(4, keyframe: false), at: 10_000)
        let feedback = h.receiver.feedback(nowMicroseconds: 10_000)
        #expect(feedback.map { H.rtcpTypes($0.datagram) } == ["201", "202", "205.1"])
        #expect(h.receiver.rtcp.counters.nackedPackets == 2)
    }

    @Test func aNewSenderRestartsTheStreamAfterTheOldOnesFramesAndWaitsForItsKeyframe() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        #expect(H.summary(h.drain(at: 0)) == ["1k"])
        // On probation for three packets, then adopted: a restart naming the SSRC reported on.
        for (index, sequence) in [500, 501, 502].enumerated() {
            h.send(H.vp8(UInt16(sequence), keyframe: index == 0, ssrc: 0xCC), at: 100_000 + Int64(index) * 1000)
        }
        let actions = h.drain(at: 102_000)
        #expect(H.summary(actions) == ["R", "244k", "245", "246"])
        #expect(actions.first == .restart(previousSSRC: H.ssrc))
        #expect(!h.receiver.awaitingKeyframe)
        var counters = PacketCounters()
        h.receiver.count(into: &counters)
        #expect(counters.senderRestarts == 1)
    }

    @Test func aNewSenderWithoutAKeyframeIsAskedForOne() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        _ = h.drain(at: 0)
        for sequence in [700, 701, 702] { h.send(H.vp8(UInt16(sequence), keyframe: false, ssrc: 0xCC), at: 100_000) }
        #expect(H.summary(h.drain(at: 100_000)) == ["R"])
        #expect(h.receiver.rtcp.keyframes.pending == .newSender)
        #expect(h.receiver.mediumState(nowMicroseconds: 100_000) == .waitingForKeyframe)
    }

    @Test func cvoTurnsTheFrameItArrivesWithAndEveryOneAfter() {
        var h = H.video(cvo: VideoOrientationExtension(id: 3))
        let quarterTurn = RTPHeaderExtension(profile: 0xBEDE, data: [0x30, 0x01, 0, 0])
        h.send(H.vp8(1, keyframe: true), at: 0)
        h.send(H.vp8(2, keyframe: false, headerExtension: quarterTurn), at: 33_000)
        h.send(H.vp8(3, keyframe: false), at: 66_000)
        let orientations = h.drain(at: 66_000).compactMap { action -> PictureOrientation? in
            if case .decode(_, _, let orientation) = action { return orientation }
            return nil
        }
        #expect(orientations == [.upright, PictureOrientation(quarterTurns: 1), PictureOrientation(quarterTurns: 1)])
    }

    @Test func audioIsHeardFromItsFirstDecodedPacketAndNeverWaitsForAKeyframe() {
        var h = H.audio()
        let packet = RTPPacket(payloadType: 0, marker: false, sequenceNumber: 9, timestamp: 160, ssrc: 0x5, payload: [0xFF, 0xFE])
        h.send(packet.serialized(), at: 0)
        #expect(h.receiver.mediumState(nowMicroseconds: 0) == .noPackets)
        #expect(h.drain(at: 0).count == 1)
        #expect(!h.receiver.awaitingKeyframe)
        #expect(h.receiver.mediumState(nowMicroseconds: 0) == .live)
        // Audio asks for nothing: its feedback is the report alone.
        #expect(h.receiver.feedback(nowMicroseconds: 0) == nil)
        #expect(h.receiver.feedback(nowMicroseconds: 500_000).map { H.rtcpTypes($0.datagram) } == ["201", "202"])
    }

    @Test func theStatusNamesEachNewRefusalOnceAndSumsTheStreams() {
        var status = RTPReceptionStatus()
        let payloadType = RTPRefusalNotice(reason: .payloadType, text: "payload type 111")
        status.note(payloadType)
        status.note(payloadType)
        #expect((status.refusal, status.refusalCount) == ("payload type 111", 1))
        status.note(RTPRefusalNotice(reason: .source, text: "packets from 10.0.0.66:40000 refused"))
        status.note(payloadType)
        #expect((status.refusal, status.refusalCount) == ("payload type 111", 3))
        var video = H.video(), audio = H.audio()
        video.send(H.vp8(1, keyframe: false), at: 0)
        _ = video.receiver.feedback(nowMicroseconds: 0)
        status.update(from: [video.receiver, audio.receiver], nowMicroseconds: 1000)
        #expect(status.videoState == .waitingForKeyframe)
        #expect(status.audioState == .noPackets)
        #expect((status.rtcp.reports, status.rtcp.pli) == (1, 1))
        #expect(status.refusalCount == 3)
    }
}
