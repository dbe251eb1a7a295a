// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// One medium of an RTP input as `RTPStreamReceiver` takes it from its sockets: datagrams from
/// two senders (latching, another sender after silence), RTP and multiplexed RTCP, RTX
/// retransmissions, the reorder buffer and its expiry, CVO, the depacketizer, the keyframe gate
/// (a decode failure now and then) and the RTCP feedback it sends back.
///
/// The first input byte picks the stream (H.264 video with RTX, NACK, PLI, FIR and CVO; VP8
/// video without rtcp-mux; Opus audio; AAC audio). Each record after it is a flags byte, a
/// time step byte (milliseconds) and a 16-bit length, then the datagram:
///
///     0x01 from the second sender   0x02 on the RTCP port   0x04 the decoder fails the next frame
///     0x08 silence first (the sender's timeout)
///
/// Properties: every feedback datagram is valid RTCP a sender would read, every frame handed to
/// the decoder is non-empty, and counters never run backwards.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let media = ReceiverStreams.all[Int(reader.byte()) % ReceiverStreams.all.count]
    var receiver = RTPStreamReceiver(media: media, reorderWaitMicroseconds: 50_000, senderSilenceMicroseconds: 2_000_000,
                                     receiverSSRC: 0x7E55_E7A0)
    let senders = [RTPEndpoint(address: [192, 0, 2, 1], port: 5000), RTPEndpoint(address: [198, 51, 100, 7], port: 6000)]
    var now: Int64 = 1_000_000
    var failNext = false
    while !reader.isAtEnd {
        let flags = reader.byte()
        now += Int64(reader.byte()) * 1000 + (flags & 0x08 != 0 ? 2_500_000 : 0)
        let length = Int(reader.byte()) | Int(reader.byte()) << 8
        let datagram = reader.take(length)
        let sender = senders[Int(flags & 0x01)]
        failNext = failNext || flags & 0x04 != 0
        datagram.withUnsafeBytes { bytes in
            let screening = flags & 0x02 != 0
                ? receiver.screenControl(bytes, truncated: false, from: sender)
                : receiver.screen(bytes, truncated: false, from: sender, arrivalMicroseconds: now)
            switch screening {
            case .media: _ = receiver.mediaArrived(bytes, from: sender, arrivalMicroseconds: now)
            case .control: _ = receiver.controlArrived(bytes, arrivalMicroseconds: now)
            case .refused, .ignored: break
            }
        }
        drain(&receiver, now: now, failNext: &failNext)
    }
    // Time passes: everything waiting in the reorder buffer comes out, feedback falls due.
    for _ in 0..<4 {
        now = max(now + 100_000, receiver.nextDeadlineMicroseconds ?? now)
        receiver.expire(nowMicroseconds: now)
        drain(&receiver, now: now, failNext: &failNext)
    }
    var counters = PacketCounters()
    receiver.count(into: &counters)
    _ = receiver.mediumState(nowMicroseconds: now)
    return 0
}

/// Carries out what the receiver says, as the reader does: frames to the decoder, feedback out.
private func drain(_ receiver: inout RTPStreamReceiver, now: Int64, failNext: inout Bool) {
    if let deadline = receiver.nextDeadlineMicroseconds, deadline <= now { receiver.expire(nowMicroseconds: now) }
    while let action = receiver.nextAction(nowMicroseconds: now) {
        guard case .decode(let frame, _, _) = action else { continue }
        require(!frame.data.isEmpty, "an empty frame was handed to the decoder")
        if failNext {
            receiver.decodeFailed(nowMicroseconds: now)
            failNext = false
        } else {
            receiver.frameDecoded(frame)
        }
    }
    var sent = 0
    while let feedback = receiver.feedback(nowMicroseconds: now) {
        require(RTCPSenderFeedback.parse(feedback.datagram) != nil, "the receiver sent RTCP a sender cannot read")
        sent += 1
        require(sent < 16, "the receiver keeps sending feedback at one instant")
    }
}

/// The streams a receiver is fuzzed as, from the SDP an SFU would send.
enum ReceiverStreams {
    static let all: [RTPMediaDescription] = {
        let session = "v=0\r\no=- 0 0 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\n"
        let sdp = session + """
            m=video 5004 RTP/AVPF 96 97\r
            a=rtpmap:96 H264/90000\r
            a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0LAH4yNQFAe0A==,aM48gA==\r
            a=rtpmap:97 rtx/90000\r
            a=fmtp:97 apt=96\r
            a=rtcp-fb:96 nack\r
            a=rtcp-fb:96 nack pli\r
            a=rtcp-fb:96 ccm fir\r
            a=extmap:3 urn:3gpp:video-orientation\r
            a=rtcp-mux\r
            m=audio 5006 RTP/AVP 111\r
            a=rtpmap:111 opus/48000/2\r
            a=rtcp-mux\r

            """
        let other = session + """
            m=video 5008 RTP/AVPF 100\r
            a=rtpmap:100 VP8/90000\r
            a=rtcp-fb:100 nack pli\r
            m=audio 5010 RTP/AVP 101\r
            a=rtpmap:101 mpeg4-generic/48000/2\r
            a=fmtp:101 streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190\r

            """
        let first = try! SessionDescription.parse(sdp), second = try! SessionDescription.parse(other)
        return [first.video!, second.video!, first.audio!, second.audio!]
    }()
}
