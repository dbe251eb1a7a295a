import Foundation
import TesseraComposition

/// The hand-over point between one input's thread (producer) and the output thread (consumer):
/// a bounded queue of decoded pictures, the input's audio buffer, and its end / failure flags.
///
/// In `asap` pace the output waits here until the input has shown it everything up to the time
/// being drawn, and the input waits when it is too far ahead (backpressure). In `realtime` pace the
/// output never waits: it takes what is there.
///
/// Threads: every member is guarded by `condition`; both sides wait and signal on it. This is the
/// one lock in the worker that is not a `Mutex`: the input's thread and the output thread block on
/// each other here (backpressure both ways), which is what a condition variable is for and what a
/// `Mutex` cannot do.
final class InputChannel: @unchecked Sendable {
    let audio: InputAudioBuffer
    private let condition = NSCondition()
    private let capacity: Int
    private var queue: [DecodedVideoFrame] = []
    private var current: DecodedVideoFrame?
    /// The picture dropped when the input went silent, for regions with `onVideoLoss: lastFrame`.
    private var dropped: DecodedVideoFrame?
    private var videoEnded = false
    private var audioEnded = false
    private var failure: Error?
    private var cancelled = false
    /// Output sample position the output thread is waiting to reach in `audio`, or nil.
    private var audioDemand: Int64?
    /// Last instant (µs, output timeline) covered by media seen so far: for the end of the task.
    private var endMicroseconds: Int64 = 0

    /// `realtime`: the input never waits for the output; a full queue drops its oldest picture.
    private let realtime: Bool
    /// Task-clock time (µs) of the last picture or audio received: a live input silent for longer
    /// than its silence timeout falls back to its placeholder.
    private var lastMediaClockMicroseconds: Int64?
    private var receivedPictures: Int64 = 0
    private var droppedPictures: Int64 = 0

    init(audio: InputAudioBuffer, capacity: Int = 6, realtime: Bool = false) {
        self.audio = audio
        self.realtime = realtime
        self.capacity = realtime ? max(capacity, 45) : capacity
    }

    // MARK: Input side

    /// Queues a picture; blocks while the queue is full, unless the output is starving for this
    /// input's audio (a badly interleaved file must not deadlock the two sides). False if cancelled.
    func push(_ frame: DecodedVideoFrame) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if realtime {
            if queue.count >= capacity {
                queue.removeFirst()
                droppedPictures += 1
            }
        } else {
            while queue.count >= capacity && !cancelled && !outputStarvesForAudio { condition.wait() }
        }
        if cancelled { return false }
        queue.append(frame)
        receivedPictures += 1
        endMicroseconds = max(endMicroseconds, frame.endMicroseconds)
        condition.broadcast()
        return true
    }

    /// Drops queued pictures at or after `pts` (the input was moved earlier: they would now come
    /// after pictures that follow them).
    func discardQueuedPictures(from pts: Int64) {
        condition.lock()
        queue.removeAll { $0.ptsMicroseconds >= pts }
        condition.broadcast()
        condition.unlock()
    }

    /// A picture no output frame will show (so it was never scaled): counted, and its end noted.
    func skip(endMicroseconds end: Int64) {
        condition.lock()
        receivedPictures += 1
        endMicroseconds = max(endMicroseconds, end)
        condition.broadcast()
        condition.unlock()
    }

    /// Tells a waiting output that audio was appended up to `endMicroseconds`.
    func audioAppended(endMicroseconds end: Int64) {
        condition.lock()
        endMicroseconds = max(endMicroseconds, end)
        condition.broadcast()
        condition.unlock()
    }

    /// Marks that media arrived now (task clock), for live / silent decisions.
    func noteMedia(atClockMicroseconds now: Int64) { condition.withLock { lastMediaClockMicroseconds = now } }

    /// A live input (re)connected: its streams are open again.
    func reopen() { update { $0.videoEnded = false; $0.audioEnded = false; $0.failure = nil } }

    func finishVideo() { update { $0.videoEnded = true } }
    func finishAudio() { update { $0.audioEnded = true } }
    func fail(_ error: Error) { update { $0.failure = error; $0.videoEnded = true; $0.audioEnded = true } }

    var isCancelled: Bool { condition.withLock { cancelled } }

    // MARK: Output side

    func cancel() { update { $0.cancelled = true } }

    /// Timestamps in millisecond containers (FLV, RTMP, Matroska) are rounded to the millisecond:
    /// frame 2 of 30 fps reads 67 ms, after the output's 66.667 ms. A picture up to this much
    /// "late" still counts as on time, so such an input is not shown one frame behind.
    static let timestampToleranceMicroseconds: Int64 = 1_000

    /// The picture to draw at `time` (µs): the latest whose timestamp is not after it, or nil when
    /// there is none yet or the input's last picture has ended. With `wait`, blocks until the
    /// input has decoded past `time` or ended.
    func picture(at time: Int64, wait: Bool) -> DecodedVideoFrame? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while let next = queue.first, next.ptsMicroseconds <= time + Self.timestampToleranceMicroseconds {
                current = next
                queue.removeFirst()
                condition.broadcast()
            }
            if !wait || !queue.isEmpty || videoEnded || cancelled { break }
            condition.wait()
        }
        guard let current else { return nil }
        // After the last picture's own duration there is no video (no frozen last frame).
        if queue.isEmpty && videoEnded && time >= current.endMicroseconds { return nil }
        return current
    }

    /// In `asap` pace: blocks until the input's audio reaches `position` (output samples) or ends.
    func waitForAudio(until position: Int64) {
        condition.lock()
        defer { condition.unlock() }
        while audio.endPosition < position && !audioEnded && !cancelled {
            audioDemand = position
            condition.broadcast()
            condition.wait()
        }
        audioDemand = nil
    }

    /// Whether everything this input will ever give has been given, and when it ends (µs).
    var endState: (ended: Bool, endMicroseconds: Int64, failure: Error?) {
        condition.withLock { (videoEnded && audioEnded, endMicroseconds, failure) }
    }

    /// Waits (asap) until the input has ended or produced media beyond `time`; used when nothing
    /// else would wait on this input (no region and no audio share), so the end is still known.
    func waitUntilEndKnown(after time: Int64) {
        condition.lock()
        defer { condition.unlock() }
        while !(videoEnded && audioEnded) && endMicroseconds <= time && !cancelled {
            if queue.count >= capacity, let last = queue.last {
                // Nobody draws this input: keep only the newest pictures so it can run on.
                current = last
                queue.removeAll()
                condition.broadcast()
            }
            condition.wait()
        }
    }

    /// Whether media arrived within `timeout` of `now` (task clock, µs).
    func isReceiving(now: Int64, timeout: Int64) -> Bool {
        condition.withLock { lastMediaClockMicroseconds.map { now - $0 <= timeout } ?? false }
    }

    /// Forgets the picture on show (a live input went silent: its region shows the placeholder).
    func dropCurrentPicture() {
        condition.withLock {
            dropped = current ?? dropped
            current = nil
        }
    }

    /// The last picture this input showed, even after its video stopped or ended (nil before any).
    var lastPicture: DecodedVideoFrame? { condition.withLock { current ?? dropped } }

    var counters: (pictures: Int64, dropped: Int64) { condition.withLock { (receivedPictures, droppedPictures) } }

    // MARK: Private

    private var outputStarvesForAudio: Bool {
        guard let audioDemand else { return false }
        return audio.endPosition < audioDemand
    }

    private func update(_ change: (InputChannel) -> Void) {
        condition.lock()
        change(self)
        condition.broadcast()
        condition.unlock()
    }
}
