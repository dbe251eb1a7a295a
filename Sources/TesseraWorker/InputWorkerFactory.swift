import TesseraComposition
import TesseraTask
import TesseraMedia

/// Makes an input's worker with what every input of a task shares: the output's audio format and
/// frame rate, the layout in force, the task clock, and how inputs are opened. Used when the task
/// starts and when an update adds an input.
struct InputWorkerFactory: Sendable {
    let audio: AudioSettings
    let video: VideoSettings?
    let live: Bool
    /// `encoder.video.latency` (normal for audio-only tasks): input placement and RTP jitter allowance.
    let latency: EncoderLatency
    let layout: LayoutState
    let clock: TaskClock
    let stateChanged: ChangeSignal
    let openInput: MixMedia.OpenInput
    /// The task's per-participant outputs, which every input records into.
    let recordings: PerInputRecordings?

    init(task: ResolvedTask, layout: LayoutState, clock: TaskClock, stateChanged: ChangeSignal, openInput: @escaping MixMedia.OpenInput,
         recordings: PerInputRecordings? = nil) {
        self.recordings = recordings
        audio = task.audio
        video = task.video
        live = task.pace == .realtime
        latency = task.video?.latency ?? .normal
        self.layout = layout
        self.clock = clock
        self.stateChanged = stateChanged
        self.openInput = openInput
    }

    /// Offline `source` is already open; live it is nil and the worker opens the input itself.
    func make(_ input: ResolvedInput, source: (any OpenedInput)?, decoderThreads: Int) -> InputWorker {
        // Live media is read at most the input latency ahead, so 3 s is ample; offline, a badly
        // interleaved file may run audio far ahead of its video.
        let buffer = InputAudioBuffer(channels: audio.channels, sampleRate: audio.sampleRate, capacitySeconds: live ? 3 : 10)
        let channel = InputChannel(audio: buffer, realtime: live)
        return InputWorker(input: input, source: source,
                           open: { [openInput, latency] interrupt in try openInput(input, interrupt, decoderThreads, latency) },
                           channel: channel, layout: layout, audio: audio, video: video,
                           clock: live ? clock : nil, stateChanged: stateChanged, recordings: recordings)
    }
}
