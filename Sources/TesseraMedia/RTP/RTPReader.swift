import CFFmpeg
import Foundation
import TesseraCore

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
    /// Large enough for any UDP datagram, so none is cut short silently.
    private static let datagramCapacity = 65_536

    init(source: RTPSource, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) {
        self.source = source
        scaler = VideoScaler(pool: pool)
        self.outputSampleRate = outputSampleRate
        resampler = AudioResampler(outputRate: outputSampleRate, outputChannels: outputChannels)
        concealer = AudioGapConcealer(channels: outputChannels, sampleRate: outputSampleRate)
        audioPlacement = AudioDriftPlacement(sampleRate: outputSampleRate)
    }

    var packetCounters: PacketCounters? { countersLock.withLock { counters } }

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
            if let deadline = stream.reorder.nextDeadlineMicroseconds {
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
            guard !sink.shouldStop, let (length, truncated) = stream.socket.receive(into: buffer) else { return }
            let arrival = nowMicroseconds
            let datagram = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
            if truncated {
                stream.refusedDatagrams += 1
                continue
            }
            if stream.media.rtcpMux && RTPPacket.isRTCP(datagram) {
                noteControl(datagram, stream: stream, arrival: arrival)
                continue
            }
            guard case .success(let packet) = RTPPacket.parse(datagram), packet.payloadType == stream.media.payloadType else {
                stream.refusedDatagrams += 1
                continue
            }
            try handle(stream.reorder.insert(packet, arrivalMicroseconds: arrival), of: stream, sink: sink)
        }
    }

    private func receiveControl(_ socket: UDPSocket, stream: RTPStream, buffer: UnsafeMutableRawBufferPointer) {
        for _ in 0..<Self.datagramsPerPass {
            guard let (length, truncated) = socket.receive(into: buffer) else { return }
            if truncated { continue }
            noteControl(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), stream: stream, arrival: nowMicroseconds)
        }
    }

    /// Sender reports tie the participant's RTP clocks to one wall clock; anything else in RTCP
    /// (receiver reports, SDES, BYE) changes nothing here. The clock matches reports to streams
    /// by SSRC, and keeps one that comes before its stream's first decoded frame.
    private func noteControl(_ datagram: UnsafeRawBufferPointer, stream: RTPStream, arrival: Int64) {
        guard let compound = RTCPCompound.parse(datagram) else { return }
        for report in compound.senderReports {
            clock.noteSenderReport(report, kind: stream.media.kind, arrivalMicroseconds: arrival)
        }
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
            case .restart:
                // A new sender: nothing of the old one may reach the decoder or the clock.
                stream.depacketizer.reset()
                stream.decoder.flush()
                clock.reset(kind: stream.media.kind)
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
        } catch is MediaError {
            // Corrupt media from the network: count it; video then waits for the next keyframe
            // rather than showing pictures built on a broken reference.
            decodeErrors += 1
            if stream.media.kind == .video { stream.depacketizer.packetsLost() }
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
        for stream in source.streams {
            let reorder = stream.reorder.statistics
            total.received += reorder.received
            total.lost += reorder.lost
            total.reordered += reorder.reordered
            total.late += reorder.late + reorder.duplicates
            total.malformed += stream.refusedDatagrams + reorder.foreign + stream.depacketizer.statistics.malformedPackets
            total.senderRestarts += reorder.restarts
        }
        total.concealedMilliseconds = concealer.concealedSamples * 1000 / Int64(outputSampleRate)
        total.clockDriftPpm = clock.driftCorrectionPpm
        total.clockJumps = clock.jumps
        countersLock.withLock { counters = total }
    }
}
