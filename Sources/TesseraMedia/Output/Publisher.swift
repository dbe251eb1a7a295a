import CFFmpeg
import Foundation
import TesseraRTP
import TesseraTask

/// One live output on a thread of its own: a bounded queue of encoded packets in, a container
/// out. A slow or dead destination never holds up the encoder or the other outputs: when the
/// queue overflows the publisher drops to the next keyframe, and when a network connection
/// fails it reconnects with back-off (first retry within a second, then doubling to a cap),
/// resuming at the next keyframe, until it gives up after `giveUpSeconds` and reports `failed`.
/// A network destination that takes no bytes for `stallSeconds` (a CDN that stopped reading
/// without closing) is a failure like any other: the connection is abandoned without waiting on
/// it — every write, trailer and close of a network output has a deadline — and the output
/// reconnects. It reads `live` only once the destination has accepted the stream and taken its
/// first packet, and it always ends in a final state (`finished` or `failed`).
///
/// Threads: `send`, `finish`, `cancel` and `snapshot` are called from the pipeline's thread; the
/// publisher's own thread does all FFmpeg work on its muxer. Shared state is guarded by `condition`.
public final class Publisher: @unchecked Sendable {
    public enum State: String, Sendable { case connecting, live, reconnecting, failed, finished, paused }

    public struct Snapshot: Sendable {
        public var state: State
        public var bytes: Int64
        public var reconnects: Int64
        public var droppedPackets: Int64
        public var lastError: String?
        /// RTP outputs: what was sent and what the receiver reported, and the SDP sent by.
        public var rtp: RTPOutputStatus?
        public var sessionDescription: String?

        public init(state: State, bytes: Int64, reconnects: Int64, droppedPackets: Int64, lastError: String?) {
            self.state = state; self.bytes = bytes; self.reconnects = reconnects
            self.droppedPackets = droppedPackets; self.lastError = lastError
        }
    }

    /// A packet handed to the publisher's thread (its own reference to the data).
    private final class QueuedPacket: @unchecked Sendable {
        let packet: Packet
        let streamIndex: Int
        let isVideoKeyframe: Bool
        init(_ packet: Packet, streamIndex: Int, isVideoKeyframe: Bool) {
            self.packet = packet; self.streamIndex = streamIndex; self.isVideoKeyframe = isVideoKeyframe
        }
    }

    public let output: ResolvedOutput
    private let streams: [StreamDescription]
    private let hasVideo: Bool
    private let startOffsetMicroseconds: Int64
    private let giveUpSeconds: Double
    /// Network outputs: seconds the destination may take no bytes before the connection is lost.
    private let stallSeconds: Double
    private let capacity: Int
    private let condition = NSCondition()
    private var queue: [QueuedPacket] = []
    private var finishing = false
    private var cancelled = false
    private var waitingForKeyframe = true
    private var state: State = .connecting
    /// Told whenever `state` changes (the worker then reports its status at once).
    private let stateChanged: ChangeSignal?
    /// Container, protocols and options of `output`.
    private let target: OutputTarget
    /// Threads in `waitUntilQueued`: the writer wakes them as it takes packets.
    private var drainWaiters = 0
    private var bytes: Int64 = 0
    private var reconnects: Int64 = 0
    private var dropped: Int64 = 0
    private var lastError: String?
    private let interrupt = InterruptFlag()
    /// Paused (a recording on hold): packets are not queued. On resume the next packet written
    /// (a keyframe) is placed right after the last one written before the pause, and every later
    /// one moves by as much: the file's timeline has no hole where the pause was.
    private var paused = false
    /// Where packets go on the file's timeline across pauses (`PauseTimeline`).
    private var timeline: PauseTimeline
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    /// Uploaded outputs only: the upload spool is full, so packets are dropped for now.
    private let hold: OutputHold?

    /// `joinsMidStream`: added to a running task, so packets before the next keyframe are skipped;
    /// an output there from the start takes everything (the encoder's first frame is a keyframe).
    public init(output: ResolvedOutput, streams: [StreamDescription], startOffsetMicroseconds: Int64,
                giveUpSeconds: Double, stallSeconds: Double = 10, capacity: Int = 300, joinsMidStream: Bool = false,
                stateChanged: ChangeSignal? = nil, hold: OutputHold? = nil) {
        self.stallSeconds = stallSeconds
        self.output = output
        self.hold = output.upload == nil ? nil : hold
        target = OutputTarget(output, hasVideo: streams.contains(where: \.isVideo))
        self.stateChanged = stateChanged
        self.streams = streams
        hasVideo = streams.contains(where: \.isVideo)
        self.startOffsetMicroseconds = startOffsetMicroseconds
        self.giveUpSeconds = giveUpSeconds
        self.capacity = capacity
        waitingForKeyframe = hasVideo && joinsMidStream
        timeline = PauseTimeline(streams: streams.count, videoStream: streams.firstIndex(where: \.isVideo))
        paused = output.paused
        if paused { state = .paused }
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "tessera-output"
        self.thread = thread
        thread.start()
    }

    // MARK: Pipeline side

    /// Queues a packet of stream `streamIndex` (never blocks). Before the first keyframe after a
    /// (re)connect or an overflow, video and audio are skipped so the stream starts decodable.
    func send(_ packet: Packet, streamIndex: Int) {
        let isKeyframe = streams[streamIndex].isVideo && packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0
        condition.lock()
        defer { condition.unlock() }
        guard !finishing, !cancelled, state != .failed, !paused else { return }
        if let hold, hold.isHeld {
            // The spool is full: skip, and start again at a keyframe once it drains.
            dropped += 1
            waitingForKeyframe = hasVideo
            return
        }
        if queue.count >= capacity {
            // The destination cannot keep up: start again from the next keyframe.
            dropped += Int64(queue.count)
            queue.removeAll()
            waitingForKeyframe = hasVideo
        }
        queue.append(QueuedPacket(packet.clone(), streamIndex: streamIndex, isVideoKeyframe: isKeyframe))
        condition.signal()
    }

    /// Holds or resumes the output (a recording's `paused`). Resuming starts again at the next
    /// keyframe, which the caller asks the encoder for.
    func setPaused(_ wanted: Bool) {
        let changed = condition.withLock { () -> Bool in
            guard wanted != paused, !finishing, !cancelled, state != .failed else { return false }
            paused = wanted
            if wanted {
                queue.removeAll()
                state = .paused
            } else {
                waitingForKeyframe = hasVideo
                timeline.resume()
                state = .live
            }
            condition.broadcast()
            return true
        }
        if changed { stateChanged?.notify() }
    }

    /// Writes what is queued, then the trailer, and ends the thread; waits at most `seconds`.
    public func finish(timeoutSeconds seconds: Double = 10) {
        condition.lock()
        finishing = true
        condition.broadcast()
        condition.unlock()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            cancel()
            _ = done.wait(timeout: .now() + 2)
        }
    }

    /// Stops at once (removal by an update): the connection is closed without waiting.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
        interrupt.cancel()
    }

    /// Packets waiting to be written.
    public var queuedPackets: Int { condition.withLock { queue.count } }

    /// Blocks while more than `limit` packets wait to be written (an offline relay holds its
    /// reading so that a slow output is not overrun), unless this output has failed or is ending.
    /// Woken by the writer as it takes packets, not by polling.
    func waitUntilQueued(atMost limit: Int) {
        condition.lock()
        defer { condition.unlock() }
        while queue.count > limit && state != .failed && !cancelled && !finishing {
            drainWaiters += 1
            condition.wait()
            drainWaiters -= 1
        }
    }

    public var snapshot: Snapshot {
        condition.withLock { Snapshot(state: state, bytes: bytes, reconnects: reconnects, droppedPackets: dropped, lastError: lastError) }
    }

    // MARK: Publisher thread

    private var isNetwork: Bool { target.isNetwork }

    private func run() {
        var failingSince: Double?
        var backoff = 0.5
        var attempts = 0
        defer { settle() }
        while true {
            // Every attempt after the first counts, whether the last connection failed or the
            // destination never answered.
            if attempts > 0 { condition.withLock { reconnects += 1 } }
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
                if sleepInterruptibly(backoff) { return }
                backoff = min(backoff * 2, 8)
                continue
            }
            failingSince = nil
            backoff = 0.5
            // A file is live once open; a network destination once it has taken a packet.
            if !isNetwork { setState(condition.withLock { paused } ? .paused : .live) }
            let outcome = pump(muxer)
            switch outcome {
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
                let ending = condition.withLock { () -> Bool in
                    state = finishing || cancelled ? .failed : .reconnecting
                    stateChanged?.notify()
                    queue.removeAll()
                    waitingForKeyframe = hasVideo
                    condition.broadcast()
                    return finishing || cancelled
                }
                if ending { return }
                failingSince = MonotonicClock.seconds
                if sleepInterruptibly(backoff) { return }
            }
        }
    }

    /// Leaves a final state when the thread ends (see `OutputFault.finalState`).
    private func settle() {
        let changed = condition.withLock { () -> Bool in
            let final = OutputFault.finalState(state, hasError: lastError != nil)
            defer { state = final; condition.broadcast() }
            return final != state
        }
        if changed { stateChanged?.notify() }
    }

    private enum PumpOutcome { case finished, cancelled, failed(Error) }

    private func pump(_ muxer: Muxer) -> PumpOutcome {
        // A network destination that takes no bytes for this long is lost; a file's writes are not watched.
        let stall = isNetwork ? stallSeconds : nil
        var announced = !isNetwork
        while true {
            condition.lock()
            while queue.isEmpty && !finishing && !cancelled { condition.wait() }
            if cancelled { condition.unlock(); return .cancelled }
            if queue.isEmpty && finishing { condition.unlock(); return .finished }
            let next = queue.removeFirst()
            if drainWaiters > 0 { condition.broadcast() }
            if waitingForKeyframe {
                if next.isVideoKeyframe { waitingForKeyframe = false } else { condition.unlock(); continue }
            }
            let keep = placeOnTimeline(next)
            condition.unlock()
            guard keep else { continue }
            do {
                let size = Int64(next.packet.pointer.pointee.size)
                try muxer.write(next.packet, streamIndex: next.streamIndex, stallSeconds: stall)
                condition.withLock { bytes += size }
                if !announced {
                    // The destination accepted the stream (RTMP: `NetStream.Publish.Start`) and its first packet.
                    announced = true
                    setState(condition.withLock { paused } ? .paused : .live)
                }
            } catch {
                return .failed(error)
            }
        }
    }

    /// Moves `next` back by the time spent paused (the first packet after a resume sets how
    /// much); false for a packet that would now overlap what its stream already wrote (audio
    /// encoded a moment before the keyframe a resume waits for). Under `condition`.
    private func placeOnTimeline(_ next: QueuedPacket) -> Bool {
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
        let changed = condition.withLock { () -> Bool in
            defer { state = new; condition.broadcast() }
            return state != new
        }
        if changed { stateChanged?.notify() }
    }

    private func record(_ error: Error) {
        let text = "\(error)".replacingOccurrences(of: output.url, with: URLRedaction.redact(output.url))
        condition.withLock { lastError = text }
    }

    /// Sleeps unless cancelled or finishing; true when the thread should end.
    private func sleepInterruptibly(_ seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while !cancelled && !finishing && Date() < deadline { _ = condition.wait(until: deadline) }
        return cancelled || finishing
    }
}
