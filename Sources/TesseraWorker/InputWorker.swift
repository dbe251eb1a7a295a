import Foundation
import Synchronization
import Logging
import TesseraComposition
import TesseraRTP
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// Runs one input on a thread of its own: reads its media and hands pictures and audio to its
/// `InputChannel`, placed on the output timeline.
///
/// Offline the input is opened before the task starts (so a bad input fails it by name) and its
/// own time zero sits at `startAtMs`. Live (pace `realtime`) it is opened on its own thread; each
/// time media starts flowing (first connection or a reconnect) its time zero is placed `latency`
/// ahead of the task clock (`InputPlacement`), and reading is paced so it never runs further ahead
/// than that — a file plays at its native speed, a pull URL as it arrives. A live network input
/// that drops or fails to open is retried with back-off while it shows as `waiting`.
///
/// Threads: configured on the pipeline's thread, then used by its own thread until `join`;
/// what the status reads from other threads is in `shared`.
final class InputWorker: MediaSink, @unchecked Sendable {
    let input: ResolvedInput
    let channel: InputChannel
    /// The input's SEI user data on the output timeline, for the output clock (InputWorker+SEI).
    let seiQueue = TimedSEIQueue()
    /// Messages of the picture about to be handed over (the reader calls `sei` just before `picture`).
    var seiOfNextPicture: [SEIMessage] = []
    private let interrupt = InterruptFlag()
    let layout: LayoutState
    private let audioSettings: AudioSettings
    /// The output's frame instants (nil for an audio-only task): a picture none of them shows is
    /// not scaled.
    private let instants: OutputInstants?
    /// Memory for this input's scaled pictures, reused as the output lets them go.
    private let pool = YUVImagePool()
    private let clock: TaskClock?
    /// Told whenever `state` or the orientation changes (the worker then reports at once).
    let stateChanged: ChangeSignal
    private let open: () throws -> any OpenedInput
    private var initialSource: (any OpenedInput)?
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    /// Where the current connection's media lands on the output timeline (the input's thread only).
    private var placement: InputPlacement
    /// False for media that arrives in real time by itself (RTP): holding its thread back would
    /// only delay one stream's packets behind the other's.
    private var paced = true
    /// This input's per-participant recordings (`{input}` outputs), on its thread; nil when the
    /// task has none it could ever have (offline without any).
    private let recordings: InputRecordings?

    /// What the input's thread tells the status, read from any thread.
    struct Shared {
        /// The reader of the open connection; nil while none is open.
        var reader: ReaderHandle?
        var state: InputStatus.State = .waiting
        var lastError: String?
        /// The reader's refusal count last logged.
        var loggedRefusals: Int64 = 0
        var decodeErrors = 0
        /// How the newest picture was turned upright, for the status; nil before the first picture.
        var orientation: PictureOrientation?
        /// The newest picture's display size, for the status's `drawSize`.
        var displaySize: PixelSize?
        /// Whether the open source has a video stream; nil until it is open.
        var hasVideoStream: Bool?
        /// Clock jumps of the reader already logged.
        var loggedClockJumps: Int64 = 0
        /// When (task clock, µs) the first picture handed to the output is due; nil before it.
        var firstPictureAt: Int64?
    }

    let shared = Mutex(Shared())
    static let logger = Logger(label: "tessera.input")

    /// How far ahead of the output a live input is placed (room for network jitter) and how a
    /// paced one is read in batches.
    private let latency: EncoderLatency

    /// Offline: `source` is already open. Live: pass nil and the worker opens it with `open`.
    init(input: ResolvedInput, source: (any OpenedInput)?, open: @escaping (InterruptFlag) throws -> any OpenedInput,
         channel: InputChannel, layout: LayoutState, audio: AudioSettings, video: VideoSettings?, clock: TaskClock?,
         stateChanged: ChangeSignal, recordings: PerInputRecordings? = nil) {
        self.recordings = recordings.map { InputRecordings(inputID: input.id, shared: $0) }
        self.input = input
        self.stateChanged = stateChanged
        self.channel = channel
        self.layout = layout
        audioSettings = audio
        instants = video.map { OutputInstants(fps: $0.fps, toleranceMicroseconds: InputChannel.timestampToleranceMicroseconds) }
        latency = video?.latency ?? .normal
        self.clock = clock
        initialSource = source
        let interrupt = self.interrupt
        self.open = { try open(interrupt) }
        placement = InputPlacement(startAtMicroseconds: input.startAtMicroseconds, live: clock != nil)
        if let source { configure(for: source) }
    }

    private var isLive: Bool { clock != nil }

    func start() {
        let thread = Thread { [self] in
            if isLive { runLive() } else { runOffline() }
            recordings?.finishAll()
            // What the input holds open (RTP ports, a connection) goes with its thread, not with
            // this object, which the pipeline may keep a little longer.
            initialSource = nil
            shared.withLock { $0.reader = nil }
            finished.signal()
        }
        thread.name = "tessera-input-\(input.id)"
        self.thread = thread
        thread.start()
    }

    /// Stops reading (a removed participant or the task's end) and waits for the thread.
    func stop() {
        channel.cancel()
        interrupt.cancel()
        join()
    }

    /// Waits for the thread to end.
    func join() {
        guard thread != nil else { return }
        finished.wait()
        finished.signal()
    }

    /// Whether this input is `live` now (media within the silence timeout).
    func refreshLiveness(now: Int64, silenceMicroseconds: Int64) -> Bool {
        let receiving = channel.isReceiving(now: now, timeout: silenceMicroseconds)
        changeState { state in
            if state == .live && !receiving { state = .waiting }
            if state == .waiting && receiving { state = .live }
        }
        if !receiving { channel.dropCurrentPicture() }
        return receiving
    }

    /// For a live task's first frame (`FirstPictureGate`): when this input's first picture is due
    /// on the output timeline (nil: none yet), and whether one may still come (false once its
    /// source is open without a video stream).
    var firstPicture: (at: Int64?, mayCome: Bool) {
        shared.withLock { ($0.firstPictureAt, $0.hasVideoStream != false) }
    }

    /// An audio-only participant taking part at output time `time` (µs): its source has no video
    /// stream, and it is live (offline: `time` lies between its start and the end of its audio).
    /// `layout.audioOnlySlots` gives it a slot.
    func isAudioOnly(at time: Int64) -> Bool {
        let (hasVideo, live) = shared.withLock { ($0.hasVideoStream, $0.state == .live) }
        guard hasVideo == false else { return false }
        if isLive { return live }
        let end = channel.endState
        return time >= input.startAtMicroseconds && (!end.ended || time < end.endMicroseconds)
    }

    // MARK: Thread bodies

    private func runOffline() {
        guard let reader = shared.withLock({ $0.reader })?.reader else { return }
        do {
            try reader.run(into: self)
            channel.finishVideo()
            channel.finishAudio()
            setState(.ended)
        } catch {
            channel.fail(error)
            setState(.failed, error: "\(error)")
        }
    }

    private func runLive() {
        var backoff = 0.5
        while !channel.isCancelled {
            do {
                let source = try initialSource ?? open()
                initialSource = nil
                configure(for: source)
                channel.reopen()
                placement.connected(arrivesInRealTime: source.arrivesInRealTime)
                backoff = 0.5
                guard let reader = shared.withLock({ $0.reader })?.reader else { break }
                // The reader goes with its run: a reopen must find the old sockets closed.
                defer {
                    // A file per connection: the next one starts the next file.
                    recordings?.finishAll()
                    let errors = reader.decodeErrors
                    shared.withLock { $0.decodeErrors += errors; $0.reader = nil }
                }
                try reader.run(into: self)
            } catch {
                if channel.isCancelled { break }
                setState(.waiting, error: "\(error)")
            }
            if channel.isCancelled { break }
            // A file that has played to its end (not looping) is done; network inputs come back.
            if case .file = input.source {
                channel.finishVideo()
                channel.finishAudio()
                setState(.ended)
                return
            }
            setState(.waiting)
            // Woken at once by `stop()` (a removed input, the task's end), which raises `interrupt`.
            if !interrupt.sleep(seconds: backoff) { break }
            backoff = min(backoff * 2, 5)
        }
    }

    private func configure(for source: any OpenedInput) {
        let reader = source.makeReader(loop: input.loop, outputSampleRate: audioSettings.sampleRate,
                                       outputChannels: audioSettings.channels, pool: pool)
        let handle = ReaderHandle(reader)
        let hasVideo = source.description.hasVideo
        shared.withLock { $0.reader = handle; $0.hasVideoStream = hasVideo }
        // Bound RTP ports make the input `ready`: said at once, a `POST` waits for it.
        if source.arrivesInRealTime { stateChanged.notify() }
        paced = !source.arrivesInRealTime
        recordings?.hasVideo = hasVideo
        if !source.description.hasVideo { channel.finishVideo() }
        if !source.description.hasAudio { channel.finishAudio() }
    }

    private func setState(_ new: InputStatus.State, error: String? = nil) {
        if let error { shared.withLock { $0.lastError = error } }
        changeState { $0 = new }
    }

    /// Changes `state` under the lock; a change is signalled.
    private func changeState(_ change: (inout InputStatus.State) -> Void) {
        let changed = shared.withLock { shared -> Bool in
            let before = shared.state
            change(&shared.state)
            return shared.state != before
        }
        if changed { stateChanged.notify() }
    }

    // MARK: MediaSink (on the input's thread)

    var shouldStop: Bool { channel.isCancelled }

    /// Places the picture on the output timeline and scales it to every size the layout draws it
    /// at — unless no output frame will show it (a faster input than the output: the next picture
    /// takes over before the next frame instant), which is then only counted.
    func picture(_ picture: DecodedPicture) throws -> Bool {
        // A new orientation or size changes the status (rotation, drawSize): push it now.
        let (orientation, displaySize) = (picture.orientation, picture.displaySize)
        let reshaped = shared.withLock { shared -> Bool in
            defer { shared.orientation = orientation; shared.displaySize = displaySize }
            return shared.orientation != orientation || shared.displaySize != displaySize
        }
        if reshaped { stateChanged.notify() }
        let pts = place(picture.ptsMicroseconds)
        queueSEI(ptsMicroseconds: pts)
        let end = pts + picture.durationMicroseconds
        let sizes = layout.drawSizes(inputID: input.id, displaySize: picture.displaySize)
        if !sizes.isEmpty, let instants, mayBeSkipped(picture), !instants.showsPicture(from: pts, until: end) {
            channel.skip(endMicroseconds: end)
            markLive()
            holdBack(pts)
            return !channel.isCancelled
        }
        // Scaled before holding back, while the decoder's picture may still be in cache: after a
        // sleep, the other inputs' decoders and the encoder have run and it must come from memory.
        var scaled: [PixelSize: YUVImage] = [:]
        for size in sizes { scaled[size] = try picture.scaled(to: size) }
        // Pushed even when no region draws it (no sizes): the output still learns the input has video.
        let delivered = channel.push(DecodedVideoFrame(ptsMicroseconds: pts, endMicroseconds: end,
                                                       displaySize: picture.displaySize, scaled: scaled))
        shared.withLock { if $0.firstPictureAt == nil { $0.firstPictureAt = pts } }
        markLive()
        holdBack(pts)
        return delivered
    }

    /// Whether the picture's duration can decide that no output frame shows it. Offline, a
    /// duration the file does not state is the stream's nominal frame rate, which a demuxer may
    /// have guessed from its time base (a per-participant MKV: 1000 fps, so 1 ms per picture,
    /// which would skip nearly every picture and show the region late): such a picture is drawn,
    /// and the next picture's own timestamp ends it. Live pictures' guesses are the gap to the
    /// picture before (RTP), so they keep the skip.
    private func mayBeSkipped(_ picture: DecodedPicture) -> Bool {
        isLive || picture.durationIsKnown
    }

    func audio(_ planes: [UnsafePointer<Float>], count: Int, position: Int64) {
        let rate = Int64(audioSettings.sampleRate)
        let startMicroseconds = place(position * 1_000_000 / rate)
        let at = startMicroseconds * rate / 1_000_000
        channel.audio.append(planes, count: count, at: at)
        channel.audioAppended(endMicroseconds: (at + Int64(count)) * 1_000_000 / rate)
        markLive()
        holdBack(startMicroseconds)
    }

    /// Per-participant recordings: each packet as received, on the task clock where `place` puts
    /// the picture or audio decoded from it (the same mapping, so a moment is at the same task
    /// time in the participant's file and in the composite).
    var wantsPackets: Bool { recordings?.wantsPackets ?? false }

    func encoded(_ packet: EncodedPacket) {
        recordings?.write(packet, ptsMicroseconds: place(packet.ptsMicroseconds))
    }

    /// Input time → output timeline (`InputPlacement`). Live, the first media of a connection
    /// fixes the offset (paced media is then held back by `holdBack`); media arriving by itself
    /// may move it, and pictures queued under an earlier placement are then dropped.
    private func place(_ inputMicroseconds: Int64) -> Int64 {
        guard let clock else { return placement.offsetMicroseconds + inputMicroseconds }
        let now = clock.nowMicroseconds
        let earliest = max(input.startAtMicroseconds, now + latency.inputLatencyMicroseconds)
        let placed = placement.place(inputMicroseconds, earliest: earliest, now: now)
        if placed.move == .pulledEarlier { channel.discardQueuedPictures(from: placed.pts) }
        return placed.pts
    }

    /// Paced media (files, pull URLs) is read in batches: media placed at `pts` more than
    /// `pacedWakeLeadMicroseconds + readBatchMicroseconds` ahead of the output sleeps until it is
    /// `pacedWakeLeadMicroseconds` ahead, then the input reads that much in one go.
    private func holdBack(_ pts: Int64) {
        guard paced, let clock else { return }
        let wakeLead = latency.pacedWakeLeadMicroseconds
        if pts - clock.nowMicroseconds > wakeLead + latency.readBatchMicroseconds {
            clock.sleep(until: pts - wakeLead, unless: interrupt)
        }
    }

    private func markLive() {
        guard let clock else { return }
        channel.noteMedia(atClockMicroseconds: clock.nowMicroseconds)
        changeState { if $0 == .waiting { $0 = .live } }
    }
}
