import TesseraComposition

/// One medium of an RTP input, from datagrams to the encoded frames its decoder takes: who may
/// send (`rtp.source`, else the latched sender), RTX unwrapping, the reorder buffer, the RTCP the
/// receiver sends back (reports, keyframe requests, NACKs), CVO, the keyframe gate and the counters.
///
/// A state machine with no clock, socket, SRTP or decoder: the reader hands it each datagram with
/// its arrival time and carries out the answers — unprotect this datagram, decode this frame,
/// flush the decoder for a new sender, send this feedback there. SRTP sits between `screen` and
/// `mediaArrived` / `controlArrived`, so libsrtp's calls stay with the reader:
///
///     screen(datagram) ─ .media ──▶ (SRTP) ─▶ mediaArrived ─▶ nextAction() … ─▶ decode
///                      └ .control ─▶ (SRTCP) ─▶ controlArrived ─▶ sender reports for the clock
///
/// Frames come out one `nextAction` at a time, so what the decoder says of one frame
/// (`frameDecoded`, `decodeFailed`) acts before the packets after it are depacketized.
public struct RTPStreamReceiver {
    /// What to do with a datagram that came to the stream's RTP socket (or, for `screenControl`,
    /// its RTCP socket).
    public enum Screening: Sendable, Equatable {
        /// RTP from a sender this stream takes: unprotect it (SRTP) and hand it to `mediaArrived`.
        case media
        /// RTCP from the sender's host: unprotect it (SRTCP) and hand it to `controlArrived`.
        case control
        /// Refused: counted under its reason; the notice names it for the status.
        case refused(RTPRefusalNotice)
        /// Dropped without a word: RTCP from a host that is not the sender's, a datagram on the
        /// RTCP port that is not RTCP.
        case ignored
    }

    public enum Action: Equatable {
        /// Hand this frame to the decoder, then say how it went (`frameDecoded` / `decodeFailed`).
        /// Video's pictures from it are shown turned by `orientation` (CVO).
        case decode(EncodedMediaFrame, ssrc: UInt32, orientation: PictureOrientation)
        /// A new sender was adopted: nothing of the old one may reach the decoder or the clock
        /// (flush the decoder, reset the participant clock for this medium), and its SRTP index
        /// (`previousSSRC`, nil if none was reported on) is forgotten, in case it comes back.
        case restart(previousSSRC: UInt32?)
    }

    /// A feedback datagram (plain RTCP: an SFU's forward reads it unencrypted) and where it goes.
    public struct Feedback: Sendable, Equatable {
        public var datagram: [UInt8]
        public var peer: RTPEndpoint
    }

    /// Large enough for any UDP datagram, so none is cut short silently: the reader's buffer.
    public static let datagramCapacity = 65_536

    public let media: RTPMediaDescription
    /// `rtp.source`: the only senders taken; nil: the first sender is latched.
    public let sourceFilter: RTPSourceFilter?
    /// The input's timeout: a sender silent this long has left.
    public let senderSilenceMicroseconds: Int64
    private(set) var reorder: RTPReorderBuffer
    private var depacketizer: any RTPDepacketizer
    /// The RTCP this receiver sends about the stream; its keyframe requester's need is the
    /// keyframe gate (`awaitingKeyframe`).
    public internal(set) var rtcp: RTCPReceiver
    private var latch: RTPSenderLatch
    /// Where the sender's RTCP comes from: feedback goes back there (an SFU's forward listens
    /// for it on that socket); until one arrives, the RTP sender's address at port + 1.
    public private(set) var rtcpPeer: RTPEndpoint?
    public private(set) var rtpPeer: RTPEndpoint?
    /// When the latest accepted packet arrived.
    public private(set) var lastPacketMicroseconds: Int64?
    /// Datagrams refused before the reorder buffer, by reason.
    public private(set) var refused: [RTPRefusal: Int64] = [:]
    /// Audio: sound was decoded since the stream (re)started.
    private(set) var decodedSinceStart = false
    /// Video: the newest orientation the sender signalled (CVO), in packet order; upright until
    /// it says otherwise, and for senders that never do.
    private var orientation = PictureOrientation.upright
    /// The reorder buffer's events not yet depacketized, and frames depacketized not yet handed out.
    private var events: [RTPReorderBuffer.Event] = []
    private var ready: [Action] = []

    /// - Parameters:
    ///   - reorderWaitMicroseconds: how long a missing packet is waited for (the jitter allowance,
    ///     and the time a NACKed packet has to come back).
    ///   - senderSilenceMicroseconds: how long the latched sender must be silent before another
    ///     is taken, and before the medium shows `no packets`.
    public init(media: RTPMediaDescription, sourceFilter: RTPSourceFilter? = nil, reorderWaitMicroseconds: Int64 = 50_000,
                senderSilenceMicroseconds: Int64 = 2_000_000, receiverSSRC: UInt32 = .random(in: 1...UInt32.max)) {
        self.media = media
        self.sourceFilter = sourceFilter
        self.senderSilenceMicroseconds = senderSilenceMicroseconds
        reorder = RTPReorderBuffer(maxDelayMicroseconds: reorderWaitMicroseconds)
        var feedback = media.feedback
        // A sender that offers retransmission streams (RFC 4588) takes NACKs, said or not.
        if media.rtxPayloadType != nil { feedback.insert(.nack) }
        // Only video has references to lose; audio conceals its losses and is reported on.
        if media.kind == .audio { feedback = [] }
        rtcp = RTCPReceiver(receiverSSRC: receiverSSRC, cname: "tessera", clockRate: media.clockRate, feedback: feedback,
                            nackRetryMicroseconds: max(5_000, reorderWaitMicroseconds / 3))
        latch = RTPSenderLatch(silenceMicroseconds: senderSilenceMicroseconds)
        depacketizer = Self.depacketizer(for: media)
    }

    /// The payload format's depacketizer, configured by the SDP's `a=fmtp`.
    public static func depacketizer(for media: RTPMediaDescription) -> any RTPDepacketizer {
        let parameters = media.formatParameters
        switch media.codec {
        case .h264:
            return H264Depacketizer(parameterSets: H264Depacketizer.parameterSets(fromSprop: parameters["sprop-parameter-sets"] ?? ""))
        case .vp8: return VP8Depacketizer()
        case .vp9: return VP9Depacketizer()
        case .opus, .pcmu, .pcma: return WholePacketDepacketizer()
        case .aac:
            return AACDepacketizer(sizeLength: parameters["sizelength"].flatMap { Int($0) } ?? 13,
                                   indexLength: parameters["indexlength"].flatMap { Int($0) } ?? 3,
                                   indexDeltaLength: parameters["indexdeltalength"].flatMap { Int($0) } ?? 3)
        }
    }

    // MARK: Datagrams in

    /// Judges a datagram on the stream's RTP port from what is in the clear: its length, whether
    /// it is RTCP (rtcp-mux), its RTP header, and who sent it.
    public mutating func screen(_ datagram: UnsafeRawBufferPointer, truncated: Bool, from sender: RTPEndpoint,
                                arrivalMicroseconds arrival: Int64) -> Screening {
        if truncated {
            return .refused(refuse(.truncated, "a datagram from \(sender) is longer than \(Self.datagramCapacity) bytes"))
        }
        // Multiplexed RTCP may come from another socket of the sender's host than its RTP: it is
        // checked by address, and never moves the latch.
        if media.rtcpMux && RTPPacket.isRTCP(datagram) { return screenControl(datagram, truncated: false, from: sender) }
        // Not RTP at all: refused as malformed whoever sent it, before the sender is looked at,
        // so it is counted once (never also as a refused source) and cannot latch a sender.
        if let problem = RTPPacket.headerProblem(datagram) {
            return .refused(refuse(.malformed, "a datagram from \(sender) is not RTP: \(problem.rawValue)"))
        }
        return admit(sender, arrivalMicroseconds: arrival)
    }

    /// Judges a datagram on the stream's RTCP port (or RTCP on its RTP port, with rtcp-mux).
    /// RTCP from a host other than the RTP sender's is not the sender's to give, and changes
    /// nothing; from the sender's host, its address is where feedback goes, learnt before anything
    /// is parsed: an SFU opens its side with packets that are not reports (Janus sends two empty
    /// RTP headers to latch onto the receiver's RTCP port).
    public mutating func screenControl(_ datagram: UnsafeRawBufferPointer, truncated: Bool, from sender: RTPEndpoint) -> Screening {
        guard !truncated, controlAdmitted(sender) else { return .ignored }
        rtcpPeer = sender
        return RTPPacket.isRTCP(datagram) ? .control : .ignored
    }

    /// SRTP (`rtcp`: SRTCP) refused a datagram `screen` passed: failed authentication or replay.
    public mutating func unprotectFailed(rtcp: Bool, from sender: RTPEndpoint, error: String) -> RTPRefusalNotice {
        refuse(.authentication, "SRTP\(rtcp ? "C" : "") from \(sender) refused: \(error)")
    }

    /// An admitted sender's RTP datagram, SRTP removed: unwrapped from RTX, checked, reported on,
    /// and put in the reorder buffer (its frames then come from `nextAction`). A refusal is
    /// returned to be named; a retransmission stream's bandwidth probe is dropped silently.
    public mutating func mediaArrived(_ datagram: UnsafeRawBufferPointer, from sender: RTPEndpoint,
                                      arrivalMicroseconds arrival: Int64) -> RTPRefusalNotice? {
        let packet: RTPPacket
        switch mediaPacket(datagram, from: sender) {
        case .packet(let unwrapped): packet = unwrapped
        case .probe: return nil
        case .refused(let notice): return notice
        }
        rtpPeer = sender
        lastPacketMicroseconds = arrival
        if reorder.currentSSRC == nil || reorder.currentSSRC == packet.ssrc {
            // The first packets of a video stream: its decoder has nothing to start from yet.
            if awaitingKeyframe { rtcp.needKeyframe(.start, nowMicroseconds: arrival) }
            rtcp.packetArrived(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp,
                               ssrc: packet.ssrc, arrivalMicroseconds: arrival)
        }
        events += reorder.insert(packet, arrivalMicroseconds: arrival)
        return nil
    }

    /// An admitted RTCP datagram, SRTCP removed: its sender reports, echoed in the receiver's
    /// reports, and returned to tie the participant's RTP clocks to one wall clock.
    public mutating func controlArrived(_ datagram: UnsafeRawBufferPointer, arrivalMicroseconds arrival: Int64) -> [RTCPSenderReport] {
        guard let compound = RTCPCompound.parse(datagram) else { return [] }
        for report in compound.senderReports { rtcp.senderReportArrived(report, arrivalMicroseconds: arrival) }
        return compound.senderReports
    }

    /// Releases what has waited in the reorder buffer long enough (its frames then come from
    /// `nextAction`). Call when `nextDeadlineMicroseconds` passes.
    public mutating func expire(nowMicroseconds: Int64) {
        events += reorder.expire(nowMicroseconds: nowMicroseconds)
    }

    // MARK: Admission

    /// Whether `sender` may feed this stream: inside `rtp.source` when the task names one, else
    /// the latched sender (or a new one after the latched one fell silent).
    private mutating func admit(_ sender: RTPEndpoint, arrivalMicroseconds arrival: Int64) -> Screening {
        if let sourceFilter {
            guard sourceFilter.admits(address: sender.address, port: sender.port) else {
                return .refused(refuse(.source, "packets from \(sender) refused: outside rtp.source \(sourceFilter)"))
            }
            return .media
        }
        switch latch.admit(sender, nowMicroseconds: arrival) {
        case .accept:
            return .media
        case .switched:
            // Another host's RTCP comes from its own sockets: learn it afresh. The same host's
            // (an SFU re-issuing a forward) may well have said where already: its new forward
            // opens with packets on the RTCP port before its media comes.
            if rtcpPeer?.address != sender.address { rtcpPeer = nil }
            return .media
        case .refuse(let latched):
            return .refused(refuse(.source, "packets from \(sender) refused: the \(media.kind.rawValue) stream takes \(latched), "
                                   + "until it has been silent for the input's timeout"))
        }
    }

    /// RTCP is taken from the sender's host only: inside `rtp.source` (whose port, if any, is the
    /// sender's RTP port, not its RTCP one), else the latched sender's address.
    private func controlAdmitted(_ sender: RTPEndpoint) -> Bool {
        if let sourceFilter { return sourceFilter.admits(address: sender.address, port: sourceFilter.port ?? sender.port) }
        return latch.latched.map { $0.address == sender.address } ?? true
    }

    private enum Unwrapped {
        case packet(RTPPacket)
        case probe
        case refused(RTPRefusalNotice)
    }

    /// The RTP packet in a datagram, unwrapped from its retransmission format (RFC 4588) when it
    /// is one; refused when it is not a packet of this stream's payload type.
    private mutating func mediaPacket(_ datagram: UnsafeRawBufferPointer, from sender: RTPEndpoint) -> Unwrapped {
        let parsed = RTPPacket.parse(datagram)
        if let rtx = media.rtxPayloadType, datagram.count >= 2, datagram[1] & 0x7F == rtx {
            // A retransmission carries the original sequence number in its first two bytes; one
            // with nothing after them (or only padding) is a bandwidth probe, not media.
            guard case .success(let wrapped) = parsed, wrapped.payload.count > 2 else { return .probe }
            let original = UInt16(wrapped.payload[0]) << 8 | UInt16(wrapped.payload[1])
            return .packet(RTPPacket(payloadType: media.payloadType, marker: wrapped.marker, sequenceNumber: original,
                                     timestamp: wrapped.timestamp, ssrc: reorder.currentSSRC ?? wrapped.ssrc,
                                     payload: Array(wrapped.payload.dropFirst(2)), headerExtension: wrapped.headerExtension))
        }
        switch parsed {
        case .failure(let error):
            return .refused(refuse(.malformed, "a datagram from \(sender) is not RTP: \(error.rawValue)"))
        case .success(let packet) where packet.payloadType != media.payloadType:
            return .refused(refuse(.payloadType, "payload type \(packet.payloadType) is not in the input's SDP "
                                   + "(expected \(media.payloadType) for \(media.kind.rawValue))"))
        case .success(let packet):
            return .packet(packet)
        }
    }

    /// Counts a refused datagram under its reason.
    private mutating func refuse(_ reason: RTPRefusal, _ text: String) -> RTPRefusalNotice {
        refused[reason, default: 0] += 1
        return RTPRefusalNotice(reason: reason, text: text)
    }

    // MARK: Frames out

    /// The next thing to do with what has arrived, in packet order; nil when nothing is left.
    /// `nowMicroseconds` dates the keyframe requests a loss or a new sender makes due.
    public mutating func nextAction(nowMicroseconds now: Int64) -> Action? {
        while ready.isEmpty, !events.isEmpty {
            switch events.removeFirst() {
            case .packet(let packet, let arrival):
                // CVO: the newest signal at or before a frame's last packet applies to that frame.
                // A frame this packet ends (same timestamp) takes its signal; one that ended
                // because this packet starts the next frame does not.
                let before = orientation
                if let signalled = media.videoOrientation?.orientation(in: packet) { orientation = signalled }
                for encoded in depacketizer.push(packet, arrivalMicroseconds: arrival) {
                    let shown = encoded.rtpTimestamp == packet.timestamp ? orientation : before
                    ready.append(.decode(encoded, ssrc: packet.ssrc, orientation: shown))
                }
            case .gap:
                depacketizer.packetsLost()
                // The frame the loss fell in is dropped, and every picture after it until a keyframe.
                if media.kind == .video { rtcp.needKeyframe(.referenceLost, nowMicroseconds: now) }
            case .restart:
                let previous = rtcp.senderSSRC
                depacketizer.reset()
                rtcp.senderChanged()
                decodedSinceStart = false
                if media.kind == .video {
                    rtcp.needKeyframe(.newSender, nowMicroseconds: now)
                    orientation = .upright
                }
                ready.append(.restart(previousSSRC: previous))
            }
        }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// The decoder took a frame `nextAction` gave: a keyframe opens the gate.
    public mutating func frameDecoded(_ frame: EncodedMediaFrame) {
        if frame.isKeyframe && awaitingKeyframe { rtcp.keyframeArrived() }
        if media.kind == .audio { decodedSinceStart = true }
    }

    /// The decoder refused a frame (corrupt media from the network): video then waits for the
    /// next keyframe rather than showing pictures built on a broken reference, and asks for one.
    public mutating func decodeFailed(nowMicroseconds now: Int64) {
        guard media.kind == .video else { return }
        depacketizer.packetsLost()
        rtcp.needKeyframe(.decodeError, nowMicroseconds: now)
    }

    public var reorderStatistics: RTPReorderBuffer.Statistics { reorder.statistics }
    public var depacketizerStatistics: DepacketizerStatistics { depacketizer.statistics }

    /// Video: no picture can be decoded until a keyframe arrives — at the start, and after a new
    /// sender, a loss or a decode error. The keyframe requester's need is the one record of it.
    public var awaitingKeyframe: Bool {
        media.kind == .video && (rtcp.senderSSRC == nil || rtcp.keyframes.pending != nil)
    }
}
