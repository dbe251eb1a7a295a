import Foundation
import TesseraCore
import TesseraMedia

/// Runs one input on a thread of its own: reads its `MediaSource` and hands pictures and audio to
/// its `InputChannel`, placing them on the output timeline at the input's `startAtMs`.
///
/// Threads: created on the pipeline's thread, then used only by its own thread until `join`.
final class InputWorker: MediaSink, @unchecked Sendable {
    let index: Int
    let input: ResolvedInput
    let channel: InputChannel
    private let reader: MediaReader
    private let layout: LayoutState
    private let sampleRate: Int
    private let startAtSamples: Int64
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(index: Int, input: ResolvedInput, source: MediaSource, channel: InputChannel, layout: LayoutState,
         audio: AudioSettings) {
        self.index = index
        self.input = input
        self.channel = channel
        self.layout = layout
        sampleRate = audio.sampleRate
        startAtSamples = input.startAtMicroseconds * Int64(audio.sampleRate) / 1_000_000
        reader = MediaReader(source: source, loop: input.loop, outputSampleRate: audio.sampleRate,
                             outputChannels: audio.channels)
        if !source.description.hasVideo { channel.finishVideo() }
        if !source.description.hasAudio { channel.finishAudio() }
    }

    func start() {
        let thread = Thread { [self] in
            do {
                try reader.run(into: self)
                channel.finishVideo()
                channel.finishAudio()
            } catch {
                channel.fail(error)
            }
            finished.signal()
        }
        thread.name = "tessera-input-\(input.id)"
        thread.stackSize = 4 << 20
        self.thread = thread
        thread.start()
    }

    /// Waits for the thread to end (after `channel.cancel()` or the input's end).
    func join() {
        guard thread != nil else { return }
        finished.wait()
        finished.signal()
    }

    // MARK: MediaSink (on the input's thread)

    var shouldStop: Bool { channel.isCancelled }

    func drawSizes(for displaySize: PixelSize) -> Set<PixelSize> {
        layout.drawSizes(inputIndex: index, displaySize: displaySize)
    }

    func picture(ptsMicroseconds: Int64, durationMicroseconds: Int64, displaySize: PixelSize,
                 scaled: [PixelSize: YUVImage]) -> Bool {
        let pts = input.startAtMicroseconds + ptsMicroseconds
        return channel.push(DecodedVideoFrame(ptsMicroseconds: pts, endMicroseconds: pts + durationMicroseconds,
                                              displaySize: displaySize, scaled: scaled))
    }

    func audio(_ planes: [UnsafePointer<Float>], count: Int, position: Int64) {
        let at = startAtSamples + position
        channel.audio.append(planes, count: count, at: at)
        channel.audioAppended(endMicroseconds: (at + Int64(count)) * 1_000_000 / Int64(sampleRate))
    }
}
