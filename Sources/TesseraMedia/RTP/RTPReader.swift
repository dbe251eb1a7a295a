import CFFmpeg
import Synchronization
import TesseraComposition
import TesseraRTP
import TesseraTask

/// Receives an RTP input on its own thread: the I/O around each medium's `RTPStreamReceiver`
/// (sockets, libsrtp, the decoder), which decides what every datagram becomes. Pictures and
/// audio go to the sink on the input's timeline, which is this machine's monotonic clock as the
/// participant's clock maps each RTP timestamp (sender reports keep audio and video of one
/// participant in sync; arrival time until they come).
///
/// It never ends by itself: a sender that goes silent simply sends nothing (the input falls back
/// to its placeholder upstream), and one that comes back with a new SSRC is taken up again by the
/// reorder buffer's probation, without reopening the ports.
final class RTPReader: InputReader {
    private let source: RTPSource
    private let scaler: VideoScaler
    private let resampler: AudioResampler
    private let concealer: AudioGapConcealer
    /// Keeps audio stretched by the clock's drift ratio end to end and on its timestamps.
    private var audioPlacement: AudioDriftPlacement
    private let outputSampleRate: Int
    /// One for both media: sender reports keep a participant's audio and video in sync.
    private var clock = ParticipantClock()
    private let frame = Frame()
    private let origin = MonotonicClock.nanoseconds
    private let seiReader = SEIPacketReader()
    private var lastVideoPts: Int64?
    /// What per-participant recordings describe this input's streams with (on first use).
    private var formats: RecordingFormats?
    private(set) var decodeErrors = 0
    /// The reception status as this thread keeps it (the newest refusal across both media).
    private var reception = RTPReceptionStatus()
    /// What the status reads from other threads: counters and reception as of the last pass.
    private let published = Mutex((counters: PacketCounters(), reception: RTPReceptionStatus()))

    init(source: RTPSource, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) {
        self.source = source
        scaler = VideoScaler(pool: pool)
        self.outputSampleRate = outputSampleRate
        resampler = AudioResampler(outputRate: outputSampleRate, outputChannels: outputChannels)
        concealer = AudioGapConcealer(channels: outputChannels, sampleRate: outputSampleRate)
        audioPlacement = AudioDriftPlacement(sampleRate: outputSampleRate)
    }

    var packetCounters: PacketCounters? { published.withLock { $0.counters } }
    var receptionStatus: RTPReceptionStatus? { published.withLock { $0.reception } }

    private var nowMicroseconds: Int64 { Int64((MonotonicClock.nanoseconds - origin) / 1000) }

    func run(into sink: MediaSink) throws {
        let sockets = source.streams.flatMap(\.sockets)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: RTPStreamReceiver.datagramCapacity, alignment: 16)
        defer { buffer.deallocate() }
        while !sink.shouldStop && !source.interrupt.isCancelled {
            UDPSocket.wait(for: sockets, wake: source.interrupt.wakeDescriptor, timeoutMilliseconds: waitMilliseconds())
            for stream in source.streams {
                try receiveMedia(stream, buffer: buffer, sink: sink)
                if let control = stream.controlSocket { receiveControl(control, stream: stream, buffer: buffer) }
                stream.receiver.expire(nowMicroseconds: nowMicroseconds)
                try carryOut(stream, sink: sink)
                if let feedback = stream.receiver.feedback(nowMicroseconds: nowMicroseconds) {
                    (stream.controlSocket ?? stream.socket).send(feedback.datagram, to: feedback.peer)
                }
            }
            // Every pass (a few sums under a lock): a status that already counts the pictures of a
            // new sender must also count its restart, not trail it by a publishing interval.
            publishCounters()
        }
        publishCounters()
    }

    /// Until the earliest deadline of a stream; with none, until a datagram comes or a stop wakes
    /// the poll through the interrupt's eventfd (without one, 20 ms at a time to notice a stop).
    private func waitMilliseconds() -> Int32 {
        let now = nowMicroseconds
        var wait: Int64 = source.interrupt.wakeDescriptor >= 0 ? Int64(Int32.max) : 20
        for case let deadline? in source.streams.map(\.receiver.nextDeadlineMicroseconds) {
            wait = min(wait, max(0, (deadline - now + 999) / 1000))
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
            let arrival = nowMicroseconds
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<datagram.length])
            switch stream.receiver.screen(bytes, truncated: datagram.truncated, from: datagram.sender, arrivalMicroseconds: arrival) {
            case .media:
                guard let plain = unprotect(buffer, length: datagram.length, rtcp: false, of: stream, from: datagram.sender) else { continue }
                if let refusal = stream.receiver.mediaArrived(plain, from: datagram.sender, arrivalMicroseconds: arrival) {
                    reception.note(refusal)
                }
                try carryOut(stream, sink: sink)
            case .control:
                control(buffer, length: datagram.length, of: stream, from: datagram.sender, arrival: arrival)
            case .refused(let refusal):
                reception.note(refusal)
            case .ignored:
                continue
            }
        }
    }

    private func receiveControl(_ socket: UDPSocket, stream: RTPStream, buffer: UnsafeMutableRawBufferPointer) {
        for _ in 0..<Self.datagramsPerPass {
            guard let datagram = socket.receiveWithSender(into: buffer) else { return }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<datagram.length])
            guard stream.receiver.screenControl(bytes, truncated: datagram.truncated, from: datagram.sender) == .control else { continue }
            control(buffer, length: datagram.length, of: stream, from: datagram.sender, arrival: nowMicroseconds)
        }
    }

    /// An admitted RTCP datagram: SRTCP removed, its sender reports tie the participant's RTP
    /// clocks to one wall clock.
    private func control(_ buffer: UnsafeMutableRawBufferPointer, length: Int, of stream: RTPStream, from sender: RTPEndpoint,
                         arrival: Int64) {
        guard let plain = unprotect(buffer, length: length, rtcp: true, of: stream, from: sender) else { return }
        for report in stream.receiver.controlArrived(plain, arrivalMicroseconds: arrival) {
            clock.noteSenderReport(report, kind: stream.media.kind, arrivalMicroseconds: arrival)
        }
    }

    /// The datagram with SRTP removed (itself for plain RTP); nil, counted and named, when it
    /// fails authentication or replay protection.
    private func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int, rtcp: Bool, of stream: RTPStream,
                           from sender: RTPEndpoint) -> UnsafeRawBufferPointer? {
        guard let srtp = stream.srtp else { return UnsafeRawBufferPointer(rebasing: buffer[0..<length]) }
        switch rtcp ? srtp.unprotectRTCP(buffer, length: length) : srtp.unprotectRTP(buffer, length: length) {
        case .success(let plain):
            return UnsafeRawBufferPointer(rebasing: buffer[0..<plain])
        case .failure(let error):
            reception.note(stream.receiver.unprotectFailed(rtcp: rtcp, from: sender, error: "\(error)"))
            return nil
        }
    }

    // MARK: Decoding

    /// Does what the stream's receiver has decided, frame by frame, telling it how each decode went.
    private func carryOut(_ stream: RTPStream, sink: MediaSink) throws {
        while let action = stream.receiver.nextAction(nowMicroseconds: nowMicroseconds) {
            switch action {
            case .decode(let encoded, let ssrc, let orientation):
                try decode(encoded, of: stream, ssrc: ssrc, orientation: orientation, sink: sink)
            case .restart(let previousSSRC):
                stream.decoder.flush()
                clock.reset(kind: stream.media.kind)
                // A sender restarting with the same SSRC starts its SRTP index afresh.
                if let previousSSRC { stream.srtp?.forgetSender(ssrc: previousSSRC) }
                if stream.media.kind == .video {
                    lastVideoPts = nil
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
            stream.receiver.frameDecoded(encoded)
            // After decoding, so a recording sees what the composite shows (a frame that does not
            // decode is not recorded) and video comes with the size the decoder found.
            if sink.wantsPackets { try hand(packet, of: stream, ssrc: ssrc, ptsMicroseconds: pts, isKeyframe: encoded.isKeyframe, sink: sink) }
        } catch is MediaError {
            // Corrupt media from the network: counted; the receiver has video wait for a keyframe.
            decodeErrors += 1
            stream.receiver.decodeFailed(nowMicroseconds: nowMicroseconds)
        }
    }

    /// The packet as received, for per-participant recordings: by reference, stamped as its
    /// decoded media is.
    private func hand(_ packet: Packet, of stream: RTPStream, ssrc: UInt32, ptsMicroseconds: Int64, isKeyframe: Bool,
                      sink: MediaSink) throws {
        let video = stream.media.kind == .video
        let context = stream.decoder.context.pointee
        sink.encoded(EncodedPacket(packet: packet, kind: video ? .video : .audio, formats: try recordingFormats(),
                                   ptsMicroseconds: ptsMicroseconds, dtsMicroseconds: ptsMicroseconds, isKeyframe: isKeyframe,
                                   sender: ssrc, width: video ? Int(context.width) : 0, height: video ? Int(context.height) : 0))
    }

    /// Both media's formats as the SDP describes them, made on first use.
    private func recordingFormats() throws -> RecordingFormats {
        if let formats { return formats }
        let video = try source.session.video.map { try RecordingStreamFormat(rtp: $0) }
        let audio = try source.session.audio.map { try RecordingStreamFormat(rtp: $0) }
        let made = RecordingFormats(video: video, audio: audio)
        formats = made
        return made
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
        for stream in source.streams { stream.receiver.count(into: &total) }
        total.concealedMilliseconds = concealer.concealedSamples * 1000 / Int64(outputSampleRate)
        total.clockDriftPpm = clock.driftCorrectionPpm
        total.clockJumps = clock.jumps
        reception.update(from: source.streams.map(\.receiver), nowMicroseconds: nowMicroseconds)
        published.withLock { $0 = (total, reception) }
    }
}
