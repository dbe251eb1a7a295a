import Foundation
import Logging
import TesseraComposition
import TesseraTask
import TesseraMedia

/// The output timeline of one task: frame N at N / fps (or, audio-only, one audio frame after
/// another), each drawn from what the inputs show at that instant, with the audio mixed up to
/// the same instant so sound and picture stay together. Offline it waits for the inputs; live it
/// waits for the wall clock and never for an input, and applies updates between frames.
final class OutputClock {
    /// Shared with the control side: stop and update requests in, counters and status out.
    let control: MixControl
    /// Makes the workers of inputs an update adds.
    private let inputs: InputWorkerFactory
    private let outputs: any MixOutputs
    private let pictures: PictureSource
    private let retirement: Retirement
    private let compositor = Compositor()
    let mixer: AudioMixer
    private let expectedSeconds: Double?
    private let audioFrameSize: Int
    private let mixPlanes: [UnsafeMutablePointer<Float>]
    /// The task as last updated (layout, audio, inputs, outputs may change; encoder never).
    private(set) var task: ResolvedTask
    private(set) var workers: [InputWorker]
    /// Each input's level over the last 300 ms, updated with every mixed block (OutputClock+AudioLevels).
    var audioLevels: AudioLevels
    /// Re-arranges a template that follows the room (OutputClock+LayoutFollowing).
    var follower: LayoutFollower
    /// When the next layout-and-volume SEI is due (OutputClock+SEI).
    var volumeSEISchedule = VolumeSEISchedule()
    /// Offline: the task's scheduled updates not applied yet (OutputClock+Timeline).
    var schedule: UpdateSchedule
    /// Next output audio sample to mix.
    private var audioPosition: Int64 = 0
    /// The task clock's audio sample that output sample 0 is (live, the output starts on the
    /// inputs' first pictures, a moment after the clock's zero; offline 0).
    private var audioOrigin: Int64 = 0
    static let logger = Logger(label: "tessera.output")
    private var meter = RateMeter()
    /// Task-clock time (µs) since when no input has been live (for `idleTimeoutSeconds`).
    private var idleSince: Int64?
    /// Live with per-participant outputs: the show's timeline (its manifest), told the
    /// composite's zero, each input's absences and each update at the frame it applies.
    private let timeline: ShowTimelineRecorder?

    init(control: MixControl, inputs: InputWorkerFactory, outputs: any MixOutputs, pictures: PictureSource,
         retirement: Retirement, expectedSeconds: Double?, timeline: ShowTimelineRecorder? = nil) {
        self.timeline = timeline
        self.control = control
        self.inputs = inputs
        self.outputs = outputs
        self.pictures = pictures
        self.retirement = retirement
        self.expectedSeconds = expectedSeconds
        task = control.task
        workers = control.workers
        follower = LayoutFollower(task.layout)
        schedule = UpdateSchedule(control.live ? [] : task.schedule ?? [])
        mixer = AudioMixer(channels: task.audio.channels, sampleRate: task.audio.sampleRate)
        audioLevels = AudioLevels(sampleRate: task.audio.sampleRate)
        audioFrameSize = outputs.audioFrameSize > 0 ? outputs.audioFrameSize : 1024
        let size = audioFrameSize
        mixPlanes = (0..<task.audio.channels).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: size)
            plane.initialize(repeating: 0, count: size)
            return plane
        }
    }

    deinit { mixPlanes.forEach { $0.deallocate() } }

    private var live: Bool { control.live }
    /// The layout in force, shared with the input threads (which scale to its sizes).
    var layoutState: LayoutState { inputs.layout }
    var clock: TaskClock { inputs.clock }

    func run(progress: (MixPipeline.Progress) -> Void) throws {
        control.updateStats { $0.running = true }
        if let video = task.video {
            try runVideo(video, progress: progress)
        } else {
            try runAudioOnly(progress: progress)
        }
    }

    // MARK: Video and audio

    private func runVideo(_ video: VideoSettings, progress: (MixPipeline.Progress) -> Void) throws {
        let canvases = CanvasRing(width: video.width, height: video.height)
        // The same instants the inputs judge their pictures by (a picture none shows is not scaled).
        let instants = OutputInstants(fps: video.fps, toleranceMicroseconds: InputChannel.timestampToleranceMicroseconds)
        var frameIndex: Int64 = 0
        var lastReport: Double = 0
        // Output frame N shows the task clock's frame `firstFrame + N`: live, the first frame
        // waits for the inputs' first pictures (bounded); offline it is the clock's zero.
        let firstFrame = live ? try waitForFirstPictures(instants: instants) : 0
        timeline?.compositeStarted(at: instants.time(ofFrame: firstFrame))
        audioOrigin = firstFrame * Int64(task.audio.sampleRate) / Int64(video.fps)
        while true {
            // `time` on the output's timeline (what is written), `clockTime` on the inputs'.
            let time = instants.time(ofFrame: frameIndex)
            let clockTime = instants.time(ofFrame: firstFrame + frameIndex)
            if try shouldEnd(at: time) { break }
            if live { waitForWallClock(clockTime, frameMicroseconds: instants.frameMicroseconds) }
            submitScheduledUpdate(at: clockTime)
            try applyPendingUpdate(at: clockTime)
            let frames = currentPictures(at: clockTime)
            followTheRoom(frames: frames, at: clockTime)
            try checkFailures()
            let canvas = canvases.next()
            if let layout = layoutState.layout {
                let background = try pictures.background(for: layout)
                let lastFrames = lastPictures(for: layout)
                var drawn: [RegionPicture] = []
                drawn.reserveCapacity(layout.regions.count)
                for region in layout.regions {
                    drawn.append(try pictures.picture(for: region, frames: frames, lastFrames: lastFrames))
                }
                compositor.compose(layout: layout, background: background, into: canvas, region: { drawn[$0] })
            } else {
                canvas.fill(.black)
            }
            control.deliverSnapshotIfRequested(canvas)
            try outputs.writeVideo(canvas, frameIndex: frameIndex, sei: seiMessages(at: time, clockTime: clockTime))
            frameIndex += 1
            // Audio up to the end of this frame, in whole encoder frames.
            let frameEnd = frameIndex * Int64(task.audio.sampleRate) / Int64(video.fps)
            while audioPosition + Int64(audioFrameSize) <= frameEnd { try mixAudioFrame(count: audioFrameSize) }
            record(frames: frameIndex, at: time)
            if MonotonicClock.seconds - lastReport >= 0.25 {
                lastReport = MonotonicClock.seconds
                progress(.init(seconds: Double(time) / 1_000_000, expectedSeconds: expectedSeconds, frames: frameIndex))
            }
        }
        // The last, partial audio frame so sound lasts as long as the picture.
        let videoEnd = frameIndex * Int64(task.audio.sampleRate) / Int64(video.fps)
        if videoEnd > audioPosition { try mixAudioFrame(count: Int(videoEnd - audioPosition)) }
        progress(.init(seconds: Double(frameIndex) / Double(video.fps), expectedSeconds: expectedSeconds, frames: frameIndex))
    }

    // MARK: Audio only

    private func runAudioOnly(progress: (MixPipeline.Progress) -> Void) throws {
        var lastReport: Double = 0
        var frames: Int64 = 0
        let frameMicroseconds = Int64(audioFrameSize) * 1_000_000 / Int64(task.audio.sampleRate)
        timeline?.compositeStarted(at: 0)   // audio-only: output sample 0 is the clock's zero
        while true {
            let time = audioPosition * 1_000_000 / Int64(task.audio.sampleRate)
            if try shouldEnd(at: time) { break }
            if live { waitForWallClock(time, frameMicroseconds: frameMicroseconds) }
            submitScheduledUpdate(at: time)
            try applyPendingUpdate(at: time)
            if live { refreshLiveness(at: time) }
            try checkFailures()
            try mixAudioFrame(count: audioFrameSize)
            frames += 1
            record(frames: frames, at: time)
            if MonotonicClock.seconds - lastReport >= 0.25 {
                lastReport = MonotonicClock.seconds
                progress(.init(seconds: Double(time) / 1_000_000, expectedSeconds: expectedSeconds, frames: frames))
            }
        }
        progress(.init(seconds: Double(audioPosition) / Double(task.audio.sampleRate), expectedSeconds: expectedSeconds,
                       frames: frames))
    }

    // MARK: Shared

    private func currentPictures(at time: Int64) -> [DecodedVideoFrame?] {
        if live { refreshLiveness(at: time) }
        return hidingInputsInGaps(workers.map { $0.channel.picture(at: time, wait: !live) }, at: time)
    }

    /// `time`: the task-clock time of the frame being made (the timeline's absences start there).
    private func refreshLiveness(at time: Int64) {
        let now = clock.nowMicroseconds
        var anyLive = false
        for worker in workers {
            let isLive = worker.refreshLiveness(now: now, silenceMicroseconds: worker.input.silenceMicroseconds)
            timeline?.input(worker.input.id, live: isLive, at: time)
            if isLive { anyLive = true }
        }
        idleSince = anyLive ? nil : (idleSince ?? now)
    }

    private func mixAudioFrame(count: Int) throws {
        let end = audioPosition + Int64(count)
        if !live { for worker in workers { worker.channel.waitForAudio(until: audioOrigin + end) } }
        mixWithGaps(count: count, at: audioOrigin + audioPosition, into: mixPlanes)
        measureAudioLevels(count: count)
        try outputs.writeAudio(mixPlanes, count: count, position: audioPosition)
        audioPosition = end
    }

    /// Live: holds the frame until its wall-clock time; a frame that is already a frame late is
    /// counted, and sent at once so the stream catches up with continuous timestamps.
    private func waitForWallClock(_ time: Int64, frameMicroseconds: Int64) {
        let now = clock.nowMicroseconds
        if now > time + frameMicroseconds {
            control.updateStats { $0.lateFrames += 1 }
        } else {
            clock.sleep(until: time, unless: control.wake)
        }
    }

    /// Offline: at `maxDurationSeconds`, or once every non-looping input has ended and `time` is
    /// past the last of their ends. Live: at `maxDurationSeconds`, on a stop request, or after
    /// `idleTimeoutSeconds` with no live input.
    private func shouldEnd(at time: Int64) throws -> Bool {
        if control.isCancelled { throw TaskError.cancelled }
        if let maximum = task.maxDurationSeconds, Double(time) >= maximum * 1_000_000 {
            control.updateStats { $0.endReason = TaskEndReason.maxDuration(maximum) }
            return true
        }
        if live {
            if control.isStopRequested { return true }
            if let idleSince, clock.nowMicroseconds - idleSince >= Int64(task.idleTimeoutSeconds * 1_000_000) {
                control.updateStats { $0.endReason = TaskEndReason.idle(task.idleTimeoutSeconds) }
                return true
            }
            return false
        }
        let finite = workers.filter { !$0.input.loop }
        guard !finite.isEmpty else { return false }
        var lastEnd: Int64 = 0
        for worker in finite {
            worker.channel.waitUntilEndKnown(after: time)
            let state = worker.channel.endState
            if !state.ended { return false }
            lastEnd = max(lastEnd, state.endMicroseconds)
        }
        return time >= lastEnd
    }

    /// Offline, an input that fails fails the task; live, it is retried by its worker.
    private func checkFailures() throws {
        guard !live else { return }
        for worker in workers {
            if let failure = worker.channel.endState.failure {
                throw TaskError.input(id: worker.input.id, url: worker.input.displayURL, reason: "\(failure)")
            }
        }
    }

    /// Swaps in an update between two frames: inputs kept by id (untouched), added (started) or
    /// removed (stopped); the new layout and gains; the outputs matched by URL. Nothing here
    /// waits: images come decoded with the update, inputs open on their own threads, and what
    /// was removed ends on threads of its own (`Retirement`).
    private func applyPendingUpdate(at time: Int64) throws {
        guard let pending = control.takePendingUpdate() else { return }
        let stills = try pending.stills.get()
        let updated = pending.task
        var existing = Dictionary(uniqueKeysWithValues: workers.map { ($0.input.id, $0) })
        var next: [InputWorker] = []
        let threads = SourceOpener.decoderThreads(inputCount: updated.inputs.count)
        for input in updated.inputs {
            if let worker = existing[input.id], worker.input == input {
                existing[input.id] = nil
                next.append(worker)
            } else {
                let worker = inputs.make(input, source: nil, decoderThreads: threads)
                worker.start()
                next.append(worker)
            }
        }
        layoutState.replace(with: updated.layout, inputIDs: updated.inputs.map(\.id))
        follower = LayoutFollower(updated.layout, continuing: follower,
                                  map: Self.indexMap(from: task.inputs.map(\.id), to: updated.inputs.map(\.id)))
        pictures.adopt(stills)
        workers = next
        control.running(workers: next)
        task = updated
        timeline?.updateApplied(updated, at: time)
        // Stopping joins the input's thread, which may be in a network read until interrupted.
        for worker in existing.values {
            retirement.retire("tessera-input-removed") { worker.stop() }
        }
        try outputs.setOutputs(updated.outputs)
        // Inputs, outputs and draw sizes changed: the status says so now, not at the heartbeat.
        control.statusChanged.notify()
    }

    private func record(frames: Int64, at time: Int64) {
        let bytes = outputs.encodedBytes
        meter.add(frames: frames, bytes: bytes, at: clock.nowMicroseconds)
        let rates = meter.rates
        control.updateStats {
            $0.frames = frames
            $0.fps = rates.fps
            $0.bitrateKbps = rates.kbps
        }
    }
}

/// Frame rate and bitrate over the last few seconds of wall clock.
struct RateMeter {
    private var samples: [(time: Int64, frames: Int64, bytes: Int64)] = []
    private let window: Int64 = 3_000_000

    mutating func add(frames: Int64, bytes: Int64, at time: Int64) {
        samples.append((time, frames, bytes))
        while let first = samples.first, time - first.time > window { samples.removeFirst() }
    }

    var rates: (fps: Double, kbps: Double) {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return (0, 0) }
        let seconds = Double(last.time - first.time) / 1_000_000
        return (Double(last.frames - first.frames) / seconds, Double(last.bytes - first.bytes) * 8 / 1000 / seconds)
    }
}
