import Testing
import TesseraComposition
import TesseraRTP

/// A stream receiver driven with datagrams as byte arrays, as the reader hands them over, with
/// no SRTP (the reader's libsrtp sits between `screen` and `mediaArrived`).
struct ReceiverHarness {
    static let sfu = RTPEndpoint(address: [10, 0, 0, 7], port: 40_000)
    static let stranger = RTPEndpoint(address: [10, 0, 0, 66], port: 40_000)
    static let ssrc: UInt32 = 0xA1B2

    var receiver: RTPStreamReceiver

    static func video(rtcpMux: Bool = false, rtx: UInt8? = nil, feedback: RTCPFeedbackSupport = [],
                      cvo: VideoOrientationExtension? = nil, sourceFilter: RTPSourceFilter? = nil) -> ReceiverHarness {
        var media = RTPMediaDescription(kind: .video, port: 5004, rtcpPort: rtcpMux ? 5004 : 5005, rtcpMux: rtcpMux,
                                        payloadType: 96, codec: .vp8, clockRate: 90_000, channels: 1, formatParameters: [:],
                                        address: nil, videoOrientation: cvo)
        media.rtxPayloadType = rtx
        media.feedback = feedback
        return ReceiverHarness(receiver: RTPStreamReceiver(media: media, sourceFilter: sourceFilter, reorderWaitMicroseconds: 50_000,
                                                           senderSilenceMicroseconds: 2_000_000, receiverSSRC: 0x7E55))
    }

    static func audio() -> ReceiverHarness {
        let media = RTPMediaDescription(kind: .audio, port: 5006, rtcpPort: 5007, rtcpMux: false, payloadType: 0, codec: .pcmu,
                                        clockRate: 8000, channels: 1, formatParameters: [:], address: nil)
        return ReceiverHarness(receiver: RTPStreamReceiver(media: media, senderSilenceMicroseconds: 2_000_000, receiverSSRC: 0x7E55))
    }

    /// One VP8 frame in one packet (descriptor with S set, then the frame; P bit 0 is a keyframe).
    static func vp8(_ sequence: UInt16, keyframe: Bool, ssrc: UInt32 = ssrc, payloadType: UInt8 = 96,
                    headerExtension: RTPHeaderExtension? = nil) -> [UInt8] {
        RTPPacket(payloadType: payloadType, marker: true, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000, ssrc: ssrc,
                  payload: [0x10, keyframe ? 0x10 : 0x11, 0xAA, UInt8(truncatingIfNeeded: sequence)],
                  headerExtension: headerExtension).serialized()
    }

    /// What the reader does with a datagram on the RTP port, SRTP aside; the screening and any
    /// refusal `mediaArrived` names.
    @discardableResult
    mutating func send(_ datagram: [UInt8], from sender: RTPEndpoint = sfu, at arrival: Int64,
                       truncated: Bool = false) -> (RTPStreamReceiver.Screening, RTPRefusalNotice?) {
        datagram.withUnsafeBytes { bytes in
            let screening = receiver.screen(bytes, truncated: truncated, from: sender, arrivalMicroseconds: arrival)
            switch screening {
            case .media: return (screening, receiver.mediaArrived(bytes, from: sender, arrivalMicroseconds: arrival))
            case .control: _ = receiver.controlArrived(bytes, arrivalMicroseconds: arrival)
            case .refused, .ignored: break
            }
            return (screening, nil)
        }
    }

    /// Every action now due, each frame reported decoded (keyframes open the gate).
    mutating func drain(at now: Int64, decodes: Bool = true) -> [RTPStreamReceiver.Action] {
        var actions: [RTPStreamReceiver.Action] = []
        while let action = receiver.nextAction(nowMicroseconds: now) {
            actions.append(action)
            if decodes, case .decode(let frame, _, _) = action { receiver.frameDecoded(frame) }
        }
        return actions
    }

    /// The decoded frames' last payload byte (the sequence number they were sent with); `R` for a restart.
    static func summary(_ actions: [RTPStreamReceiver.Action]) -> [String] {
        actions.map {
            switch $0 {
            case .decode(let frame, _, _): return "\(frame.data.last ?? 0)\(frame.isKeyframe ? "k" : "")"
            case .restart: return "R"
            }
        }
    }

    /// RTCP packet types (and feedback formats) in a compound datagram: `201`, `202`, `206.1` (PLI), `205.1` (NACK).
    static func rtcpTypes(_ datagram: [UInt8]) -> [String] {
        var types: [String] = []
        var offset = 0
        while offset + 4 <= datagram.count {
            let type = datagram[offset + 1]
            types.append([205, 206].contains(type) ? "\(type).\(datagram[offset] & 0x1F)" : "\(type)")
            offset += (Int(datagram[offset + 2]) << 8 | Int(datagram[offset + 3]) + 1) * 4
        }
        return types
    }
}

@Suite struct RTPStreamReceiverAdmissionTests {
    typealias H = ReceiverHarness

    @Test func latchesTheFirstSenderAndNamesTheOneItRefuses() {
        var h = H.video()
        #expect(h.send(H.vp8(1, keyframe: true), at: 0).0 == .media)
        let (screening, _) = h.send(H.vp8(2, keyframe: false), from: H.stranger, at: 10_000)
        #expect(screening == .refused(RTPRefusalNotice(reason: .source, text: "packets from 10.0.0.66:40000 refused: the video "
            + "stream takes 10.0.0.7:40000, until it has been silent for the input's timeout")))
        #expect(h.receiver.refused == [.source: 1])
        #expect(h.receiver.rtpPeer == H.sfu)
    }

    @Test func rtpSourceRefusesEveryoneElseAndTakesItsHostsRTCPOnAnyPort() throws {
        var h = H.video(sourceFilter: try RTPSourceFilter("10.0.0.0/24:40000"))
        #expect(h.send(H.vp8(1, keyframe: true), from: H.sfu.withPort(40_002), at: 0).0
            == .refused(RTPRefusalNotice(reason: .source, text: "packets from 10.0.0.7:40002 refused: outside rtp.source 10.0.0.0/24:40000")))
        #expect(h.send(H.vp8(1, keyframe: true), at: 0).0 == .media)
        let report = RTCPSenderWriter.senderReport(ssrc: H.ssrc, ntpTimestamp: 1 << 32, rtpTimestamp: 0, packetCount: 1, octetCount: 4)
        #expect(report.withUnsafeBytes { h.receiver.screenControl($0, truncated: false, from: H.sfu.withPort(40_001)) } == .control)
        #expect(report.withUnsafeBytes { h.receiver.screenControl($0, truncated: false, from: RTPEndpoint(address: [10, 0, 1, 7], port: 40_001)) }
            == .ignored)
        #expect(h.receiver.rtcpPeer == H.sfu.withPort(40_001))
    }

    @Test func whatIsNotRTPIsRefusedAsMalformedBeforeItsSenderIsLookedAt() {
        var h = H.video()
        #expect(h.send([0x40, 96, 0, 1], from: H.stranger, at: 0).0
            == .refused(RTPRefusalNotice(reason: .malformed, text: "a datagram from 10.0.0.66:40000 is not RTP: shorter than an RTP header")))
        #expect(h.send(H.vp8(1, keyframe: true), from: H.stranger, at: 0, truncated: true).0
            == .refused(RTPRefusalNotice(reason: .truncated, text: "a datagram from 10.0.0.66:40000 is longer than 65536 bytes")))
        // Neither latched the stranger: the SFU is taken.
        #expect(h.send(H.vp8(1, keyframe: true), at: 1000).0 == .media)
        #expect(h.send(H.vp8(2, keyframe: false, payloadType: 111), at: 2000).1
            == RTPRefusalNotice(reason: .payloadType, text: "payload type 111 is not in the input's SDP (expected 96 for video)"))
        var counters = PacketCounters()
        h.receiver.count(into: &counters)
        #expect(counters.refused == ["malformed": 1, "truncated": 1, "payloadType": 1])
        #expect(counters.malformed == 3)
        #expect(counters.received == 1)
    }

    @Test func srtpFailuresAreCountedAsAuthentication() {
        var h = H.video()
        #expect(h.receiver.unprotectFailed(rtcp: true, from: H.sfu, error: "authentication failed")
            == RTPRefusalNotice(reason: .authentication, text: "SRTPC from 10.0.0.7:40000 refused: authentication failed"))
        #expect(h.receiver.refused == [.authentication: 1])
    }

    @Test func rtxFillsAHoleWithTheOriginalSequenceNumberAndProbesAreDroppedSilently() {
        var h = H.video(rtx: 97)
        h.send(H.vp8(1, keyframe: true), at: 0)
        h.send(H.vp8(3, keyframe: false), at: 1000)
        #expect(H.summary(h.drain(at: 1000)) == ["1k"])
        // The retransmission of 2 on its own SSRC and sequence, the original's number in front.
        let original = RTPPacket.parse(H.vp8(2, keyframe: false)).map(\.payload)
        let wrapped = RTPPacket(payloadType: 97, marker: true, sequenceNumber: 900, timestamp: 6000, ssrc: 0xBEEF,
                                payload: [0, 2] + ((try? original.get()) ?? [])).serialized()
        #expect(h.send(wrapped, at: 2000).1 == nil)
        #expect(H.summary(h.drain(at: 2000)) == ["2", "3"])
        let probe = RTPPacket(payloadType: 97, marker: false, sequenceNumber: 901, timestamp: 6000, ssrc: 0xBEEF, payload: [0, 9]).serialized()
        #expect(h.send(probe, at: 3000) == (.media, nil))
        #expect(h.drain(at: 3000).isEmpty)
        #expect(h.receiver.refused.isEmpty)
        #expect(h.receiver.reorderStatistics.reordered == 1)
    }

    @Test func muxedRTCPIsControlAndItsAddressIsWhereFeedbackGoes() {
        var h = H.video(rtcpMux: true)
        h.send(H.vp8(1, keyframe: true), at: 0)
        #expect(H.summary(h.drain(at: 0)) == ["1k"])
        let report = RTCPSenderWriter.senderReport(ssrc: H.ssrc, ntpTimestamp: 5 << 32, rtpTimestamp: 3000, packetCount: 1, octetCount: 4)
        let rtcpSocket = H.sfu.withPort(40_009)
        #expect(report.withUnsafeBytes { h.receiver.screen($0, truncated: false, from: rtcpSocket, arrivalMicroseconds: 1000) } == .control)
        let reports = report.withUnsafeBytes { h.receiver.controlArrived($0, arrivalMicroseconds: 1000) }
        #expect(reports == [RTCPSenderReport(ssrc: H.ssrc, ntpTimestamp: 5 << 32, rtpTimestamp: 3000)])
        // From another host, RTCP on the RTP port moves nothing, and the latch stays.
        #expect(report.withUnsafeBytes { h.receiver.screen($0, truncated: false, from: H.stranger, arrivalMicroseconds: 2000) } == .ignored)
        let feedback = h.receiver.feedback(nowMicroseconds: 600_000)
        #expect(feedback?.peer == rtcpSocket)
        #expect(feedback.map { H.rtcpTypes($0.datagram) } == ["201", "202"])
    }

    @Test func withoutRTCPFromTheSenderFeedbackGoesToItsRTPPortPlusOne() {
        var h = H.video()
        #expect(h.receiver.feedback(nowMicroseconds: 0) == nil)
        h.send(H.vp8(1, keyframe: false), at: 0)
        let feedback = h.receiver.feedback(nowMicroseconds: 0)
        #expect(feedback?.peer == H.sfu.withPort(40_001))
        // The stream started without a keyframe: a PLI rides with the first report.
        #expect(feedback.map { H.rtcpTypes($0.datagram) } == ["201", "202", "206.1"])
    }

    @Test func aNewHostsRTCPAddressIsLearntAfreshWhenTheLatchSwitches() {
        var h = H.video()
        h.send(H.vp8(1, keyframe: true), at: 0)
        _ = [UInt8]([0x80, 201, 0, 1, 0, 0, 0, 1]).withUnsafeBytes { h.receiver.screenControl($0, truncated: false, from: H.sfu.withPort(40_001)) }
        #expect(h.receiver.rtcpPeer == H.sfu.withPort(40_001))
        #expect(h.send(H.vp8(100, keyframe: true, ssrc: 0xCC), from: H.stranger, at: 3_000_000).0 == .media)
        #expect(h.receiver.rtcpPeer == nil)
    }
}
