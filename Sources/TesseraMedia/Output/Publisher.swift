import CFFmpeg
import Foundation
import Synchronization
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
/// publisher's own thread (`Publisher+Thread.swift`) does all FFmpeg work on its muxer. Shared
/// state is under `shared`; `work` wakes the publisher's thread, `drained` a `waitUntilQueued`.
public final class Publisher: @unchecked Sendable {
    /// A packet handed to the publisher's thread (its own reference to the data).
    final class QueuedPacket: @unchecked Sendable {
        let packet: Packet
        let streamIndex: Int
        let isVideoKeyframe: Bool
        init(_ packet: Packet, streamIndex: Int, isVideoKeyframe: Bool) {
            self.packet = packet; self.streamIndex = streamIndex; self.isVideoKeyframe = isVideoKeyframe
        }
    }

    /// What the pipeline's thread and the publisher's share.
    struct Shared {
        var queue: [QueuedPacket] = []
        var finishing = false
        var cancelled = false
        var waitingForKeyframe: Bool
        var state: State = .connecting
        var bytes: Int64 = 0
        var reconnects: Int64 = 0
        var dropped: Int64 = 0
        var lastError: String?
        /// Paused (a recording on hold): packets are not queued. On resume the next packet written
        /// (a keyframe) is placed right after the last one written before the pause, and every
        /// later one moves by as much: the file's timeline has no hole where the pause was.
        var paused: Bool
        /// Where packets go on the file's timeline across pauses (`PauseTimeline`).
        var timeline: PauseTimeline

        /// Whether the publisher's thread should stop waiting and end.
        var ending: Bool { cancelled || finishing }
    }

    public let output: ResolvedOutput
    let streams: [StreamDescription]
    let hasVideo: Bool
    let startOffsetMicroseconds: Int64
    let giveUpSeconds: Double
    /// Network outputs: seconds the destination may take no bytes before the connection is lost.
    let stallSeconds: Double
    private let capacity: Int
    let shared: Mutex<Shared>
    /// Wakes the publisher's thread: a packet queued, a pause, the end.
    let work = ChangeSignal()
    /// Wakes a thread in `waitUntilQueued`: a packet taken, the output failed or ending.
    let drained = ChangeSignal()
    /// Told whenever the state changes (the worker then reports its status at once).
    let stateChanged: ChangeSignal?
    /// Container, protocols and options of `output`.
    let target: OutputTarget
    let interrupt = InterruptFlag()
    /// Signalled when the publisher's thread ends.
    let done = DispatchSemaphore(value: 0)
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
        var shared = Shared(waitingForKeyframe: hasVideo && joinsMidStream, paused: output.paused,
                            timeline: PauseTimeline(streams: streams.count, videoStream: streams.firstIndex(where: \.isVideo)))
        if output.paused { shared.state = .paused }
        self.shared = Mutex(shared)
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "tessera-output"
        thread.start()
    }

    // MARK: Pipeline side

    /// Queues a packet of stream `streamIndex` (never blocks). Before the first keyframe after a
    /// (re)connect or an overflow, video and audio are skipped so the stream starts decodable.
    func send(_ packet: Packet, streamIndex: Int) {
        let isKeyframe = streams[streamIndex].isVideo && packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0
        let held = hold?.isHeld ?? false
        let queued = shared.withLock { shared -> Bool in
            guard !shared.ending, shared.state != .failed, !shared.paused else { return false }
            if held {
                // The spool is full: skip, and start again at a keyframe once it drains.
                shared.dropped += 1
                shared.waitingForKeyframe = hasVideo
                return false
            }
            if shared.queue.count >= capacity {
                // The destination cannot keep up: start again from the next keyframe.
                shared.dropped += Int64(shared.queue.count)
                shared.queue.removeAll()
                shared.waitingForKeyframe = hasVideo
            }
            shared.queue.append(QueuedPacket(packet.clone(), streamIndex: streamIndex, isVideoKeyframe: isKeyframe))
            return true
        }
        if queued { work.notify() }
    }

    /// Holds or resumes the output (a recording's `paused`). Resuming starts again at the next
    /// keyframe, which the caller asks the encoder for.
    func setPaused(_ wanted: Bool) {
        let changed = shared.withLock { shared -> Bool in
            guard wanted != shared.paused, !shared.ending, shared.state != .failed else { return false }
            shared.paused = wanted
            if wanted {
                shared.queue.removeAll()
                shared.state = .paused
            } else {
                shared.waitingForKeyframe = hasVideo
                shared.timeline.resume()
                shared.state = .live
            }
            return true
        }
        guard changed else { return }
        wake()
        stateChanged?.notify()
    }

    /// Writes what is queued, then the trailer, and ends the thread; waits at most `seconds`.
    public func finish(timeoutSeconds seconds: Double = 10) {
        shared.withLock { $0.finishing = true }
        wake()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            cancel()
            _ = done.wait(timeout: .now() + 2)
        }
    }

    /// Stops at once (removal by an update): the connection is closed without waiting.
    public func cancel() {
        shared.withLock { $0.cancelled = true }
        wake()
        interrupt.cancel()
    }

    /// Packets waiting to be written.
    public var queuedPackets: Int { shared.withLock { $0.queue.count } }

    /// Blocks while more than `limit` packets wait to be written (an offline relay holds its
    /// reading so that a slow output is not overrun), unless this output has failed or is ending.
    /// Woken by the writer as it takes packets, not by polling. One thread waits at a time.
    func waitUntilQueued(atMost limit: Int) {
        while shared.withLock({ $0.queue.count > limit && $0.state != .failed && !$0.ending }) {
            drained.wait()
        }
    }

    public var snapshot: Snapshot {
        shared.withLock {
            Snapshot(state: $0.state, bytes: $0.bytes, reconnects: $0.reconnects, droppedPackets: $0.dropped, lastError: $0.lastError)
        }
    }

    /// Wakes whichever thread waits on this output: its own, or one in `waitUntilQueued`.
    func wake() {
        work.notify()
        drained.notify()
    }
}
