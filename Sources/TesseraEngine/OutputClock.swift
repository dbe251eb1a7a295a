import Foundation
import TesseraCore
import TesseraMedia

/// The output timeline of one task: frame N at N / fps (or, audio-only, one audio frame after
/// another), each drawn from what the inputs show at that instant, with the audio mixed up to
/// the same instant so sound and picture stay together.
final class OutputClock {
    private let task: ResolvedTask
    private let workers: [InputWorker]
    private let outputs: OutputSet
    private let pictures: PictureSource
    private let layoutState: LayoutState
    private let isCancelled: () -> Bool
    private let compositor = Compositor()
    private let mixer: AudioMixer
    private let expectedSeconds: Double?
    private let audioFrameSize: Int
    private let mixPlanes: [UnsafeMutablePointer<Float>]
    /// Next output audio sample to mix.
    private var audioPosition: Int64 = 0

    init(task: ResolvedTask, workers: [InputWorker], sources: [MediaSource], outputs: OutputSet,
         pictures: PictureSource, layoutState: LayoutState, isCancelled: @escaping () -> Bool) {
        self.task = task
        self.workers = workers
        self.outputs = outputs
        self.pictures = pictures
        self.layoutState = layoutState
        self.isCancelled = isCancelled
        mixer = AudioMixer(channels: task.audio.channels, sampleRate: task.audio.sampleRate)
        audioFrameSize = outputs.audioFrameSize > 0 ? outputs.audioFrameSize : 1024
        mixPlanes = (0..<task.audio.channels).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: outputs.audioFrameSize > 0 ? outputs.audioFrameSize : 1024)
            plane.initialize(repeating: 0, count: outputs.audioFrameSize > 0 ? outputs.audioFrameSize : 1024)
            return plane
        }
        expectedSeconds = Self.expectedLength(task: task, sources: sources)
    }

    deinit { mixPlanes.forEach { $0.deallocate() } }

    private var waits: Bool { task.pace == .asap }

    func run(progress: (MixPipeline.Progress) -> Void) throws {
        if let video = task.video {
            try runVideo(video, progress: progress)
        } else {
            try runAudioOnly(progress: progress)
        }
    }

    // MARK: Video and audio

    private func runVideo(_ video: VideoSettings, progress: (MixPipeline.Progress) -> Void) throws {
        let canvas = YUVImage(width: video.width, height: video.height)
        var frameIndex: Int64 = 0
        var lastReport = Date.distantPast
        while true {
            // Rounded like input timestamps are (`av_rescale_q` rounds to nearest), so an input at
            // the output's own rate lands exactly on the frame it belongs to, not one before.
            let time = (frameIndex * 1_000_000 + Int64(video.fps) / 2) / Int64(video.fps)
            if try shouldEnd(at: time) { break }
            let frames = workers.map { $0.channel.picture(at: time, wait: waits) }
            try checkFailures()
            if let layout = layoutState.layout {
                let background = try pictures.background(for: layout)
                var drawn: [YUVImage?] = []
                drawn.reserveCapacity(layout.regions.count)
                for region in layout.regions { drawn.append(try pictures.picture(for: region, frames: frames)) }
                compositor.compose(layout: layout, background: background, into: canvas) { drawn[$0] }
            } else {
                canvas.fill(.black)
            }
            try outputs.writeVideo(canvas, frameIndex: frameIndex)
            frameIndex += 1
            // Audio up to the end of this frame, in whole encoder frames.
            let frameEnd = frameIndex * Int64(task.audio.sampleRate) / Int64(video.fps)
            while audioPosition + Int64(audioFrameSize) <= frameEnd { try mixAudioFrame(count: audioFrameSize) }
            if Date().timeIntervalSince(lastReport) >= 0.25 {
                lastReport = Date()
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
        var lastReport = Date.distantPast
        var frames: Int64 = 0
        while true {
            let time = audioPosition * 1_000_000 / Int64(task.audio.sampleRate)
            if try shouldEnd(at: time) { break }
            try checkFailures()
            try mixAudioFrame(count: audioFrameSize)
            frames += 1
            if Date().timeIntervalSince(lastReport) >= 0.25 {
                lastReport = Date()
                progress(.init(seconds: Double(time) / 1_000_000, expectedSeconds: expectedSeconds, frames: frames))
            }
        }
        progress(.init(seconds: Double(audioPosition) / Double(task.audio.sampleRate), expectedSeconds: expectedSeconds,
                       frames: frames))
    }

    // MARK: Shared

    private func mixAudioFrame(count: Int) throws {
        let end = audioPosition + Int64(count)
        var sources: [(buffer: InputAudioBuffer, gain: Float)] = []
        sources.reserveCapacity(workers.count)
        for worker in workers {
            if waits { worker.channel.waitForAudio(until: end) }
            sources.append((worker.channel.audio, task.audioMix.gains[worker.index]))
        }
        mixer.mix(sources: sources, count: count, at: audioPosition, into: mixPlanes)
        try outputs.writeAudio(mixPlanes, count: count, position: audioPosition)
        audioPosition = end
    }

    /// The task ends at `maxDurationSeconds`, or once every non-looping input has ended and
    /// `time` is past the last of their ends. A task whose inputs all loop runs to its maximum.
    private func shouldEnd(at time: Int64) throws -> Bool {
        if isCancelled() { throw TaskError.cancelled }
        if let maximum = task.maxDurationSeconds, Double(time) >= maximum * 1_000_000 { return true }
        let finite = workers.filter { !$0.input.loop }
        guard !finite.isEmpty else { return false }
        var lastEnd: Int64 = 0
        for worker in finite {
            if waits { worker.channel.waitUntilEndKnown(after: time) }
            let state = worker.channel.endState
            if !state.ended { return false }
            lastEnd = max(lastEnd, state.endMicroseconds)
        }
        return time >= lastEnd
    }

    private func checkFailures() throws {
        for worker in workers {
            if let failure = worker.channel.endState.failure {
                throw TaskError.input(id: worker.input.id, url: worker.input.displayURL, reason: "\(failure)")
            }
        }
    }

    /// The output's expected length for progress: the latest end of a non-looping input (or the
    /// maximum duration, when it comes first).
    private static func expectedLength(task: ResolvedTask, sources: [MediaSource]) -> Double? {
        var ends: [Double] = []
        for (input, source) in zip(task.inputs, sources) where !input.loop {
            guard let duration = source.description.durationMicroseconds else { return task.maxDurationSeconds }
            ends.append(Double(input.startAtMicroseconds + duration) / 1_000_000)
        }
        let inputsEnd = ends.max()
        switch (inputsEnd, task.maxDurationSeconds) {
        case let (end?, maximum?): return min(end, maximum)
        case let (end?, nil): return end
        case let (nil, maximum): return maximum
        }
    }
}
