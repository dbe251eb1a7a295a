import CFFmpeg
import Foundation
import TesseraComposition
import TesseraRTP
import TesseraTask

/// Receives an RTP input on its own thread: datagrams → reorder buffer → depacketizer → decoder,
/// and hands pictures and audio to the sink on the input's timeline, which is this machine's
/// monotonic clock as the participant's clock maps each RTP timestamp (sender reports keep audio
/// and video of one participant in sync; arrival time until they come).
///
/// It never ends by itself: a sender that goes silent simply sends nothing (the input falls back
/// to its placeholder upstream), and one that comes back with a new SSRC is taken up again by the
/// reorder buffer's probation, without reopening the ports.
final class RTPReader: InputReader {
    private let source: RTPSource
    /// `rtp.source`: the only senders taken; nil: the first sender is latched. A copy of the
    /// source's: read through `source` inside the receive loop, it crashed Swift 6.3.1's SIL
    /// ownership verifier (signal 11 in OwnershipModelEliminator, release builds).
    private let sourceFilter: RTPSourceFilter?
    private let scaler: VideoScaler
    private let resampler: AudioResampler
    private let concealer: AudioGapConcealer
    /// Keeps audio stretched by the clock's drift ratio end to end and on its timestamps.
    private var audioPlacement: AudioDriftPlacement
    private let outputSampleRate: Int
    private var clock = ParticipantClock()
    private let frame = Frame()
    private let origin = MonotonicClock.nanoseconds
    private let seiReader = SEIPacketReader()
    private var lastVideoPts: Int64?
    private(set) var decodeErrors = 0
    private let countersLock = NSLock()
    private var counters = PacketCounters()
    private var reception = RTPReceptionStatus()
    /// The newest refusal text and how many times one was set (published with the counters).
    private var refusal: (text: String?, count: Int64) = (nil, 0)
    /// Large enough for any UDP datagram, so none is cut short silently.
    private static let datagramCapacity = 65_536

    init(source: RTPSource, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) {
        self.source = source
        sourceFilter = source.sourceFilter
        scaler = VideoScaler(pool: pool)
        self.outputSampleRate = outputSampleRate
        resampler = AudioResampler(outputRate: outputSampleRate, outputChannels: outputChannels)
        concealer = AudioGapConcealer(channels: outputChannels, sampleRate: outputSampleRate)
        audioPlacement = AudioDriftPlacement(sampleRate: outputSampleRate)
    }

    var packetCounters: PacketCounters? { countersLock.withLock { counters } }
    var receptionStatus: RTPReceptionStatus? { countersLock.withLock { reception } }

    private var nowMicroseconds: Int64 { Int64((MonotonicClock.nanoseconds - origin) / 1000) }

    func run(into sink: MediaSink) throws {
        let sockets = source.streams.flatMap(\.sockets)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.datagramCapacity, alignment: 16)
        defer { buffer.deallocate() }
        while !sink.shouldStop && !source.interrupt.isCancelled {
            UDPSocket.wait(for: sockets, wake: source.interrupt.wakeDescriptor, timeoutMilliseconds: waitMilliseconds())
            for stream in source.streams {
                try receiveMedia(stream, buffer: buffer, sink: sink)
                if let control = stream.controlSocket { receiveControl(control, stream: stream, buffer: buffer) }
                try handle(stream.reorder.expire(nowMicroseconds: nowMicroseconds), of: stream, sink: sink)
                sendFeedback(stream)
            }
            // Every pass (a few sums under a lock): a status that already counts the pictures of a
            // new sender must also count its restart, not trail it by a publishing interval.
            publishCounters()
        }
        publishCounters()
    }

    /// Until the earliest reorder deadline; with none, until a datagram comes or a stop wakes the
    /// poll through the interrupt's eventfd (without one, 20 ms at a time to notice a stop).
    private func waitMilliseconds() -> Int32 {
        let now = nowMicroseconds
        var wait: Int64 = source.interrupt.wakeDescriptor >= 0 ? Int64(Int32.max) : 20
        for stream in source.streams {
            for deadline in [stream.reorder.nextDeadlineMicroseconds, stream.rtcp.nextDeadlineMicroseconds].compactMap({ $0 }) {
                wait = min(wait, max(0, (deadline - now + 999) / 1000))
            }
        }
        return Int32(wait)
    }

    // MARK: Receiving

    /// At most this many datagrams per socket per pass, so a flood on one port cannot starve the
    /// other medium, the reorder deadlines or a stop request.
    private static let datagramsPerPass = 64

    private func receiveMedia(_ stream: RTPStream, buffer: UnsafeMutableRawBufferPointer, sink: MediaSink) throws {
        for _ in 0..<Self.datagramsPerPass {
            guard !sink.shouldStop, let datagram = stream.socket.receiveWithSender(into: buffer) else { return }
            let (received, sender) = (datagram.length, datagram.sender)
            let arrival = nowMicroseconds
            if datagram.truncated {
                refuse(.truncated, stream, "a datagram from \(sender) is longer than \(Self.datagramCapacity) bytes")
                continue
            }
            // Multiplexed RTCP may come from another socket of the sender's host than its RTP: it
            // is checked by address in `noteControl`, and never moves the latch.
            if stream.media.rtcpMux && RTPPacket.isRTCP(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) {
                noteControl(buffer, length: received, from: sender, stream: stream, arrival: arrival)
                continue
            }
            // Not RTP at all: refused as malformed whoever sent it, before the sender is looked at,
            // so it is counted once (never also as a refused source) and cannot latch a sender.
            if let problem = RTPPacket.headerProblem(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) {
                refuse(.malformed, stream, "a datagram from \(sender) is not RTP: \(problem.rawValue)")
                continue
            }
            guard admit(sender, to: stream, arrival: arrival) else { continue }
            guard let length = unprotect(buffer, length: received, rtcp: false, of: stream, from: sender) else { continue }
            guard let packet = mediaPacket(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), of: stream, from: sender) else {
                continue
            }
            stream.rtpPeer = sender
            stream.lastPacketMicroseconds = arrival
            if stream.reorder.currentSSRC == nil || stream.reorder.currentSSRC == packet.ssrc {
                stream.rtcp.packetArrived(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp,
                                          ssrc: packet.ssrc, arrivalMicroseconds: arrival)
                // The first packets of a video stream: its decoder has nothing to start from yet.
                if stream.media.kind == .video, stream.awaitingKeyframe {
                    stream.rtcp.needKeyframe(.start, nowMicroseconds: arrival)
                }
            }
            try handle(stream.reorder.insert(packet, arrivalMicroseconds: arrival), of: stream, sink: sink)
        }
    }

    /// Whether `sender` may feed this stream: inside `rtp.source` when the task names one, else
    /// the latched sender (or a new one after the latched one fell silent).
    private func admit(_ sender: RTPEndpoint, to stream: RTPStream, arrival: Int64) -> Bool {
        if let filter = sourceFilter { return admit(sender, to: stream, by: filter) }
        switch stream.latch.admit(sender, nowMicroseconds: arrival) {
        case .accept:
            return true
        case .switched:
            // Another host's RTCP comes from its own sockets: learn it afresh. The same host's
            // (an SFU re-issuing a forward) may well have said where already: its new forward
            // opens with packets on the RTCP port before its media comes.
            if stream.rtcpPeer?.address != sender.address { stream.rtcpPeer = nil }
            return true
        case .refuse(let latched):
            refuse(.source, stream, "packets from \(sender) refused: the \(stream.media.kind.rawValue) stream takes \(latched), "
                   + "until it has been silent for the input's timeout")
            return false
        }
    }

    private func admit(_ sender: RTPEndpoint, to stream: RTPStream, by filter: RTPSourceFilter) -> Bool {
        guard filter.admits(address: sender.address, port: sender.port) else {
            refuse(.source, stream, "packets from \(sender) refused: outside rtp.source \(filter)")
            return false
        }
        return true
    }

    /// The RTP packet in a datagram, unwrapped from its retransmission format (RFC 4588) when it is
    /// one; nil (counted, named) when it is not a packet of this stream's payload type.
    private func mediaPacket(_ datagram: UnsafeRawBufferPointer, of stream: RTPStream, from sender: RTPEndpoint) -> RTPPacket? {
        let parsed = RTPPacket.parse(datagram)
        if let rtx = stream.media.rtxPayloadType, datagram.count >= 2, datagram[1] & 0x7F == rtx {
            // A retransmission carries the original sequence number in its first two bytes; one
            // with nothing after them (or only padding) is a bandwidth probe, not media.
            guard case .success(let wrapped) = parsed, wrapped.payload.count > 2 else { return nil }
            let original = UInt16(wrapped.payload[0]) << 8 | UInt16(wrapped.payload[1])
            return RTPPacket(payloadType: stream.media.payloadType, marker: wrapped.marker, sequenceNumber: original,
                             timestamp: wrapped.timestamp, ssrc: stream.reorder.currentSSRC ?? wrapped.ssrc,
                             payload: Array(wrapped.payload.dropFirst(2)), headerExtension: wrapped.headerExtension)
        }
        switch parsed {
        case .failure(let error):
            refuse(.malformed, stream, "a datagram from \(sender) is not RTP: \(error.rawValue)")
            return nil
        case .success(let packet) where packet.payloadType != stream.media.payloadType:
            refuse(.payloadType, stream, "payload type \(packet.payloadType) is not in the input's SDP "
                   + "(expected \(stream.media.payloadType) for \(stream.media.kind.rawValue))")
            return nil
        case .success(let packet):
            return packet
        }
    }

    /// Counts a refused datagram and names the reason: once per new text, so a flood of one kind
    /// is one line, and a new kind or sender shows at once.
    private func refuse(_ reason: RTPRefusal, _ stream: RTPStream, _ text: String) {
        stream.refused[reason, default: 0] += 1
        if refusal.text != text { refusal = (text, refusal.count + 1) }
    }

    private func receiveControl(_ socket: UDPSocket, stream: RTPStream, buffer: UnsafeMutableRawBufferPointer) {
        for _ in 0..<Self.datagramsPerPass {
            guard let datagram = socket.receiveWithSender(into: buffer) else { return }
            if datagram.truncated { continue }
            noteControl(buffer, length: datagram.length, from: datagram.sender, stream: stream, arrival: nowMicroseconds)
        }
    }

    /// The datagram's length once SRTP is removed (itself for plain RTP); nil, counted and named,
    /// when it fails authentication or replay protection.
    private func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int, rtcp: Bool, of stream: RTPStream,
                           from sender: RTPEndpoint) -> Int? {
        guard let srtp = stream.srtp else { return length }
        switch rtcp ? srtp.unprotectRTCP(buffer, length: length) : srtp.unprotectRTP(buffer, length: length) {
        case .success(let plain):
            return plain
        case .failure(let error):
            refuse(.authentication, stream, "SRTP\(rtcp ? "C" : "") from \(sender) refused: \(error)")
            return nil
        }
    }

    /// Sender reports tie the participant's RTP clocks to one wall clock, and are echoed in the
    /// receiver's reports; the address they come from is where feedback goes. RTCP from a host
    /// other than the RTP sender's is not the sender's to give, and changes nothing.
    private func noteControl(_ buffer: UnsafeMutableRawBufferPointer, length: Int, from sender: RTPEndpoint,
                             stream: RTPStream, arrival: Int64) {
        guard controlAdmitted(sender, stream: stream) else { return }
        // Learnt before anything is parsed: an SFU opens its side with packets that are not
        // reports (Janus sends two empty RTP headers to latch onto the receiver's RTCP port).
        stream.rtcpPeer = sender
        guard RTPPacket.isRTCP(UnsafeRawBufferPointer(rebasing: buffer[0..<length])),
              let plain = unprotect(buffer, length: length, rtcp: true, of: stream, from: sender),
              let compound = RTCPCompound.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<plain])) else { return }
        for report in compound.senderReports {
            clock.noteSenderReport(report, kind: stream.media.kind, arrivalMicroseconds: arrival)
            stream.rtcp.senderReportArrived(report, arrivalMicroseconds: arrival)
        }
    }

    /// RTCP is taken from the sender's host only: inside `rtp.source` (whose port, if any, is the
    /// sender's RTP port, not its RTCP one), else the latched sender's address.
    private func controlAdmitted(_ sender: RTPEndpoint, stream: RTPStream) -> Bool {
        if let filter = sourceFilter { return filter.admits(address: sender.address, port: filter.port ?? sender.port) }
        return stream.latch.latched.map { $0.address == sender.address } ?? true
    }

    /// Sends what the stream's RTCP state machine has due, from the port the sender sends RTCP to.
    private func sendFeedback(_ stream: RTPStream) {
        let now = nowMicroseconds
        let missing = stream.rtcp.feedback.contains(.nack) ? stream.reorder.missingSequenceNumbers() : []
        guard let datagram = stream.rtcp.poll(nowMicroseconds: now, missing: missing) else { return }
        let fallback = stream.rtpPeer.map { stream.media.rtcpMux ? $0 : $0.withPort($0.port &+ 1) }
        guard let peer = stream.rtcpPeer ?? fallback else { return }
        (stream.controlSocket ?? stream.socket).send(datagram, to: peer)
    }

    // MARK: Depacketizing and decoding

    private func handle(_ events: [RTPReorderBuffer.Event], of stream: RTPStream, sink: MediaSink) throws {
        for event in events {
            switch event {
            case .packet(let packet, let arrival):
                // CVO: the newest signal at or before a frame's last packet applies to that frame.
                // A frame this packet ends (same timestamp) takes its signal; one that ended
                // because this packet starts the next frame does not.
                let before = stream.orientation
                if let signalled = stream.media.videoOrientation?.orientation(in: packet) { stream.orientation = signalled }
                for encoded in stream.depacketizer.push(packet, arrivalMicroseconds: arrival) {
                    let orientation = encoded.rtpTimestamp == packet.timestamp ? stream.orientation : before
                    try decode(encoded, of: stream, ssrc: packet.ssrc, orientation: orientation, sink: sink)
                }
            case .gap:
                stream.depacketizer.packetsLost()
                if stream.media.kind == .video {
                    // The frame the loss fell in is dropped, and every picture after it until a keyframe.
                    stream.awaitingKeyframe = true
                    stream.rtcp.needKeyframe(.referenceLost, nowMicroseconds: nowMicroseconds)
                }
            case .restart:
                // A new sender: nothing of the old one may reach the decoder or the clock.
                stream.depacketizer.reset()
                stream.decoder.flush()
                clock.reset(kind: stream.media.kind)
                // A sender restarting with the same SSRC starts its SRTP index afresh.
                if let old = stream.rtcp.senderSSRC { stream.srtp?.forgetSender(ssrc: old) }
                stream.rtcp.senderChanged()
                stream.decodedSinceStart = false
                if stream.media.kind == .video {
                    stream.awaitingKeyframe = true
                    stream.rtcp.needKeyframe(.newSender, nowMicroseconds: nowMicroseconds)
                }
                if stream.media.kind == .video {
                    lastVideoPts = nil
                    stream.orientation = .upright
                    stream.frameOrientations.reset()
                }
            }
        }
    }

    private func decode(_ encoded: EncodedMediaFrame, of stream: RTPStream, ssrc: UInt32, orientation: PictureOrientation,
                        sink: MediaSink) throws {
        let pts = clock.presentationMicroseconds(kind: stream.media.kind, ssrc: ssrc, rtpTimestamp: encoded.rtpTimestamp,
                                                 clockRate: stream.media.clockRate, arrivalMicroseconds: encoded.arrivalMicroseconds)
        if stream.media.kind == .video { stream.frameOrientations.note(orientation, ptsMicroseconds: pts) }
        let packet = try Packet(bytes: encoded.data, ptsMicroseconds: pts, isKeyframe: encoded.isKeyframe)
        if stream.media.kind == .video, sink.wantsSEI, stream.decoder.carriesH264SEI { seiReader.note(packet) }
        do {
            _ = try stream.decoder.decode(packet, into: frame) { frame in try deliver(frame, of: stream, sink: sink) }
            if encoded.isKeyframe && stream.awaitingKeyframe {
                stream.awaitingKeyframe = false
                stream.rtcp.keyframeArrived()
            }
            if stream.media.kind == .audio { stream.decodedSinceStart = true }
        } catch is MediaError {
            // Corrupt media from the network: count it; video then waits for the next keyframe
            // rather than showing pictures built on a broken reference, and asks for one.
            decodeErrors += 1
            if stream.media.kind == .video {
                stream.depacketizer.packetsLost()
                stream.awaitingKeyframe = true
                stream.rtcp.needKeyframe(.decodeError, nowMicroseconds: nowMicroseconds)
            }
        }
    }

    /// False when the sink wants no more.
    private func deliver(_ frame: Frame, of stream: RTPStream, sink: MediaSink) throws -> Bool {
        let pointer = frame.pointer
        var pts = pointer.pointee.best_effort_timestamp
        if pts == FFmpeg.noPTS { pts = pointer.pointee.pts }
        if stream.media.kind == .video {
            if pts == FFmpeg.noPTS { pts = (lastVideoPts ?? 0) + 33_333 }
            // The gap to the previous picture is the best guess of how long this one stays.
            // A guess, not the picture's own duration: the next may come sooner or later.
            let duration = lastVideoPts.map { min(max(pts - $0, 10_000), 200_000) } ?? 33_333
            lastVideoPts = pts
            let orientation = stream.frameOrientations.take(ptsMicroseconds: pts)
            if sink.wantsSEI { sink.sei(seiReader.take(for: pointer)) }
            return try sink.picture(DecodedPicture(frame: pointer, scaler: scaler, orientation: orientation, ptsMicroseconds: pts,
                                                   durationMicroseconds: duration, durationIsKnown: false))
        }
        guard pts != FFmpeg.noPTS else { return true }
        // Stretched by the sender's clock drift, so that its audio fills the time its video takes.
        let placed = audioPlacement.place(target: pts * Int64(outputSampleRate) / 1_000_000 - resampler.delay, ratio: clock.driftRatio)
        var position = placed.position
        resampler.stretch = placed.ratio
        try resampler.convert(pointer) { planes, count in
            concealer.process(planes, count: count, position: position) { planes, count, at in
                sink.audio(planes, count: count, position: at)
            }
            position += Int64(count)
        }
        audioPlacement.ended(at: position)
        return true
    }

    private func publishCounters() {
        var total = PacketCounters()
        var status = RTPReceptionStatus()
        let now = nowMicroseconds
        for stream in source.streams {
            let reorder = stream.reorder.statistics
            total.received += reorder.received
            total.lost += reorder.lost
            total.reordered += reorder.reordered
            total.late += reorder.late + reorder.duplicates
            // Packets of a would-be new sender on probation are not refused: they are adopted
            // with it, or were a stray that proved nothing. A source refusal is not malformed.
            total.add(refused: Dictionary(stream.refused.map { ($0.key.rawValue, $0.value) }, uniquingKeysWith: +),
                      depacketizerMalformed: stream.depacketizer.statistics.malformedPackets)
            total.senderRestarts += reorder.restarts
            status.rtcp = status.rtcp + stream.rtcp.counters
            let state = mediumState(stream, now: now)
            if stream.media.kind == .video { status.videoState = state } else { status.audioState = state }
        }
        total.concealedMilliseconds = concealer.concealedSamples * 1000 / Int64(outputSampleRate)
        total.clockDriftPpm = clock.driftCorrectionPpm
        total.clockJumps = clock.jumps
        (status.refusal, status.refusalCount) = refusal
        countersLock.withLock {
            counters = total
            reception = status
        }
    }

    /// A medium is live once it is decoded; video that has packets but no keyframe to start from
    /// says so, as that is what an operator needs to see when a region stays on its placeholder.
    private func mediumState(_ stream: RTPStream, now: Int64) -> RTPMediumState {
        guard let last = stream.lastPacketMicroseconds, now - last < source.senderSilenceMicroseconds else { return .noPackets }
        if stream.media.kind == .video { return stream.awaitingKeyframe ? .waitingForKeyframe : .live }
        // Audio has no keyframes: it is heard from its first decoded packet.
        return stream.decodedSinceStart ? .live : .noPackets
    }
}
