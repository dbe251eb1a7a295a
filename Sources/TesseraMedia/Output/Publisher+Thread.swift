import CFFmpeg
import TesseraTask

/// The publisher's own thread: connect, write the queue, reconnect with back-off, settle.
extension Publisher {
    private var isNetwork: Bool { target.isNetwork }

    func run() {
        var failingSince: Double?
        var backoff = 0.5
        var attempts = 0
        defer { settle() }
        while true {
            // Every attempt after the first counts, whether the last connection failed or the
            // destination never answered.
            if attempts > 0 { shared.withLock { $0.reconnects += 1 } }
            attempts += 1
            guard let muxer = connect() else {
                // Files do not come back by waiting; network destinations may.
                let now = MonotonicClock.seconds
                let since = failingSince ?? now
                failingSince = since
                if !isNetwork || now - since >= giveUpSeconds {
                    setState(.failed)
                    return
                }
                setState(.reconnecting)
                if sleepUnlessEnding(backoff) { return }
                backoff = min(backoff * 2, 8)
                continue
            }
            failingSince = nil
            backoff = 0.5
            // A file is live once open; a network destination once it has taken a packet.
            if !isNetwork { setState(shared.withLock { $0.paused } ? .paused : .live) }
            switch pump(muxer) {
            case .finished:
                do {
                    try muxer.finish(stallSeconds: isNetwork ? stallSeconds : nil)
                    setState(.finished)
                } catch {
                    record(error)
                    setState(.failed)
                }
                return
            case .cancelled:
                if isNetwork { muxer.abandon() }
                return
            case .failed(let error):
                record(error)
                guard isNetwork else { setState(.failed); return }
                // Not a byte more to a peer that stopped reading: closing it must not wait.
                muxer.abandon()
                let ending = shared.withLock { shared -> Bool in
                    shared.state = shared.ending ? .failed : .reconnecting
                    shared.queue.removeAll()
                    shared.waitingForKeyframe = hasVideo
                    return shared.ending
                }
                stateChanged?.notify()
                wake()
                if ending { return }
                failingSince = MonotonicClock.seconds
                if sleepUnlessEnding(backoff) { return }
            }
        }
    }

    /// Leaves a final state when the thread ends (see `OutputFault.finalState`).
    private func settle() {
        let changed = shared.withLock { shared -> Bool in
            let final = OutputFault.finalState(shared.state, hasError: shared.lastError != nil)
            defer { shared.state = final }
            return final != shared.state
        }
        wake()
        if changed { stateChanged?.notify() }
    }

    private enum PumpOutcome { case finished, cancelled, failed(Error) }

    /// What the writer does next, decided under the lock.
    private enum Step { case wait, skip, finished, cancelled, write(QueuedPacket) }

    private func pump(_ muxer: Muxer) -> PumpOutcome {
        // A network destination that takes no bytes for this long is lost; a file's writes are not watched.
        let stall = isNetwork ? stallSeconds : nil
        var announced = !isNetwork
        while true {
            let step = shared.withLock { shared -> Step in
                if shared.cancelled { return .cancelled }
                guard !shared.queue.isEmpty else { return shared.finishing ? .finished : .wait }
                let next = shared.queue.removeFirst()
                if shared.waitingForKeyframe {
                    guard next.isVideoKeyframe else { return .skip }
                    shared.waitingForKeyframe = false
                }
                return place(next, on: &shared.timeline) ? .write(next) : .skip
            }
            switch step {
            case .wait: work.wait(); continue
            case .cancelled: return .cancelled
            case .finished: return .finished
            case .skip: drained.notify(); continue
            case .write(let next):
                drained.notify()
                do {
                    let size = Int64(next.packet.pointer.pointee.size)
                    try muxer.write(next.packet, streamIndex: next.streamIndex, stallSeconds: stall)
                    shared.withLock { $0.bytes += size }
                    if !announced {
                        // The destination accepted the stream (RTMP: `NetStream.Publish.Start`) and its first packet.
                        announced = true
                        setState(shared.withLock { $0.paused } ? .paused : .live)
                    }
                } catch {
                    return .failed(error)
                }
            }
        }
    }

    /// Moves `next` back by the time spent paused (the first packet after a resume sets how
    /// much); false for a packet that would now overlap what its stream already wrote (audio
    /// encoded a moment before the keyframe a resume waits for).
    private func place(_ next: QueuedPacket, on timeline: inout PauseTimeline) -> Bool {
        let packet = next.packet.pointer
        let timeBase = streams[next.streamIndex].timeBase
        let microseconds = AVRational(num: 1, den: 1_000_000)
        guard packet.pointee.pts != FFmpeg.noPTS else { return true }
        let start = av_rescale_q(packet.pointee.pts, timeBase, microseconds)
        // x264's packets carry no duration: a picture lasts one frame.
        let frameRate = streams[next.streamIndex].frameRate
        let duration = packet.pointee.duration > 0 || frameRate.num <= 0
            ? av_rescale_q(packet.pointee.duration, timeBase, microseconds)
            : av_rescale_q(1, AVRational(num: frameRate.den, den: frameRate.num), microseconds)
        guard let paused = timeline.place(stream: next.streamIndex, start: start, duration: duration) else { return false }
        let shift = av_rescale_q(paused, microseconds, timeBase)
        packet.pointee.pts -= shift
        if packet.pointee.dts != FFmpeg.noPTS { packet.pointee.dts -= shift }
        return true
    }

    private func connect() -> Muxer? {
        do {
            return try target.open(streams: streams, startOffsetMicroseconds: startOffsetMicroseconds, interrupt: interrupt)
        } catch {
            record(error)
            return nil
        }
    }

    private func setState(_ new: State) {
        let changed = shared.withLock { shared -> Bool in
            defer { shared.state = new }
            return shared.state != new
        }
        wake()
        if changed { stateChanged?.notify() }
    }

    private func record(_ error: Error) {
        let text = "\(error)".replacingOccurrences(of: output.url, with: URLRedaction.redact(output.url))
        shared.withLock { $0.lastError = text }
    }

    /// Sleeps `seconds` unless the output is cancelled or finishing; true when the thread should end.
    private func sleepUnlessEnding(_ seconds: Double) -> Bool {
        let deadline = MonotonicClock.seconds + seconds
        while true {
            if shared.withLock({ $0.ending }) { return true }
            let left = deadline - MonotonicClock.seconds
            guard left > 0 else { return false }
            work.wait(seconds: left)
        }
    }
}
