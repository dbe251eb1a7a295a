import Foundation
import Synchronization
import TesseraComposition
import TesseraTask

/// The thumbnails of a task's outputs (those with `thumbnails`), drawn from the composite the
/// output clock already made: each output counts the frames it takes (a paused one takes none,
/// so its thumbnails follow the recording's own timeline), and on a thumbnail's frame the
/// composite is scaled once to the thumbnail's size. Offline the JPEGs are written in step;
/// live they go to a thread of their own through a short queue, and a full queue drops the
/// thumbnail (counted, logged) rather than hold up a frame.
///
/// Threads: the output thread; `dropped` and `failures` from any thread.
public final class ThumbnailSet {
    private final class Recorder {
        var output: ResolvedOutput
        let writer: ThumbnailWriter
        let scaler: CompositeScaler
        /// Frames this output has taken so far: its own timeline.
        var frames: Int64 = 0
        init(output: ResolvedOutput, writer: ThumbnailWriter, scaler: CompositeScaler) {
            self.output = output; self.writer = writer; self.scaler = scaler
        }
    }

    private let canvas: PixelSize
    private let fps: Int
    private let log: @Sendable (String) -> Void
    private var recorders: [Recorder] = []
    /// Live only.
    private let thread: ThumbnailThread?
    private let counters = Mutex<(dropped: Int, failures: Int)>((0, 0))

    /// `log`: one line per failure or drop, which the caller stamps with the task.
    public init(outputs: [ResolvedOutput], canvas: PixelSize, fps: Int, live: Bool,
                log: @escaping @Sendable (String) -> Void) {
        self.canvas = canvas
        self.fps = fps
        self.log = log
        thread = live ? ThumbnailThread() : nil
        setOutputs(outputs)
    }

    /// Thumbnails dropped because the thumbnail thread was behind.
    public var dropped: Int { counters.withLock { $0.dropped } }
    /// Thumbnails that could not be made or written.
    public var failures: Int { counters.withLock { $0.failures } }
    public var isEmpty: Bool { recorders.isEmpty }

    /// The outputs after an update, matched as `OutputSet` matches them: kept ones go on
    /// counting (and follow their pause), new ones start at their first frame.
    public func setOutputs(_ outputs: [ResolvedOutput]) {
        var kept: [Recorder] = []
        for output in outputs {
            guard output.thumbnails != nil else { continue }
            if let recorder = recorders.first(where: { $0.output.isSameDestination(as: output) && $0.output.thumbnails == output.thumbnails }) {
                recorder.output = output
                kept.append(recorder)
                continue
            }
            guard let plan = ThumbnailPlan(output: output, fps: fps) else { continue }
            do {
                let writer = try ThumbnailWriter(plan: plan)
                let scaler = try CompositeScaler(from: canvas, to: PixelSize(width: plan.settings.width, height: plan.settings.height))
                kept.append(Recorder(output: output, writer: writer, scaler: scaler))
            } catch {
                fail("thumbnails of \(output.url) not started: \(error)")
            }
        }
        for removed in recorders where !kept.contains(where: { $0 === removed }) { finish(removed) }
        recorders = kept
    }

    /// Frame `composite` of the output timeline: every output whose thumbnail falls on the frame
    /// it takes now gets one.
    public func take(_ composite: YUVImage) {
        for recorder in recorders where !recorder.output.paused {
            defer { recorder.frames += 1 }
            guard let index = recorder.writer.plan.thumbnail(atFrame: recorder.frames) else { continue }
            let picture: YUVImage
            do {
                picture = try recorder.scaler.scale(composite)
            } catch {
                fail("thumbnail \(index + 1) of \(recorder.output.url): \(error)")
                continue
            }
            let writer = recorder.writer
            let url = recorder.output.url
            let job = ThumbnailThread.Job { [weak self] in
                do { try writer.write(index, picture: picture) } catch {
                    self?.fail("thumbnail \(index + 1) of \(url) not written: \(error)")
                }
            }
            if let thread {
                if !thread.submit(job) {
                    let dropped = counters.withLock { counters -> Int in counters.dropped += 1; return counters.dropped }
                    log("thumbnail \(index + 1) of \(url) dropped: the thumbnail thread is behind (\(dropped) dropped so far)")
                }
            } else {
                job.run()
            }
        }
    }

    /// Writes what is queued and each track's last cue to the end of its output.
    public func finish() {
        thread?.finish(timeoutSeconds: 10)
        for recorder in recorders { finish(recorder) }
        recorders = []
    }

    /// Offline failure: stops and deletes every thumbnail file written.
    public func abandon() {
        thread?.finish(timeoutSeconds: 10)
        for recorder in recorders { recorder.writer.removeAll() }
        recorders = []
    }

    private func finish(_ recorder: Recorder) {
        // The thread may still hold this recorder's jobs: finish after them, on it, when live.
        let writer = recorder.writer, url = recorder.output.url
        let duration = recorder.frames * 1000 / Int64(max(fps, 1))
        let job = ThumbnailThread.Job { [weak self] in
            do { try writer.finish(durationMilliseconds: duration) } catch {
                self?.fail("thumbnail track of \(url) not finished: \(error)")
            }
        }
        if let thread, thread.isRunning, thread.submit(job, evenWhenFull: true) { return }
        job.run()
    }

    private func fail(_ message: String) {
        counters.withLock { $0.failures += 1 }
        log(message)
    }
}
