import Foundation
import TesseraComposition
import TesseraTask

/// The task's encoders and every output they feed: one encode per format, many outputs.
///
/// Three parts: the encoders (`EncodePool`: opened while an output takes their format, renditions
/// scaled from the composite, ladder keyframes and SEI at `EncodeCadence`'s frames), the outputs
/// and the packets' ways to them (`OutputRouter`, `PacketRoute`), and this set, which opens and
/// closes outputs as the task says (`OutputSet+Open.swift`).
///
/// Threads: the pipeline's thread, except `outputStates`, `allOutputsFailedReason` and `encodes`
/// (the status thread).
public final class OutputSet {
    /// Live outputs run on threads of their own and reconnect; offline ones are written in step
    /// with the encoder, so a slow disk slows the run instead of losing packets.
    let live: Bool
    let giveUpSeconds: Double
    /// Live network outputs: seconds their destination may take no bytes before they reconnect.
    let stallSeconds: Double
    let audioSettings: AudioSettings
    let pool: EncodePool
    let router: OutputRouter
    let interrupt: InterruptFlag
    /// Where removed outputs are finished, off the pipeline's thread (shared with the pipeline,
    /// which retires removed inputs there too).
    let retirement: Retirement
    /// Told when a live output changes state.
    let stateChanged: ChangeSignal?
    /// Held while the upload spool is full (`s3://` outputs).
    let hold: OutputHold?
    /// Told after each LL-HLS part is published (`HLSPartPublished`).
    let hlsParts: HLSPartPublished?
    /// Samples per chunk of the mix: AAC's frame when the task starts with an AAC output, else
    /// Opus's 20 ms (a voice room sending only into the room mixes in 20 ms steps).
    public let audioFrameSize: Int

    var plan: EncodePlan { pool.plan }

    /// Opens every output (and the encoders they need). On failure, closes and removes whatever
    /// it had opened, then throws an error naming the output.
    public init(outputs: [ResolvedOutput], video videoSettings: VideoSettings?, audio audioSettings: AudioSettings,
                interrupt: InterruptFlag, live: Bool, giveUpSeconds: Double, stallSeconds: Double = 10,
                retirement: Retirement = Retirement(), stateChanged: ChangeSignal? = nil, hold: OutputHold? = nil,
                hlsParts: HLSPartPublished? = nil) throws {
        self.hlsParts = hlsParts
        self.stallSeconds = stallSeconds
        self.interrupt = interrupt
        self.hold = hold
        self.stateChanged = stateChanged
        self.retirement = retirement
        self.live = live
        self.giveUpSeconds = giveUpSeconds
        self.audioSettings = audioSettings
        let plan = EncodePlan(video: videoSettings)
        // With renditions, an HLS master playlist's CODECS is read from each encoder's SPS.
        let hasLadder = plan.hasRenditions && outputs.contains { if case .hls = $0.kind { true } else { false } }
        let globalHeader = live || hasLadder || outputs.compactMap(Self.formatName).contains(where: Muxer.needsGlobalHeader(formatName:))
        pool = EncodePool(plan: plan, audio: audioSettings, globalHeader: globalHeader, realtime: live)
        router = OutputRouter(plan: plan)
        let onlyRTP = !outputs.isEmpty && outputs.allSatisfy { if case .rtp = $0.kind { true } else { false } }
        audioFrameSize = onlyRTP ? audioSettings.sampleRate / 50 : 1024
        do {
            for output in outputs {
                try open(output)
            }
        } catch {
            abandon()
            throw error
        }
    }

    /// The encodes running now, by name (`h264-high`, `h264-baseline`, `vp8`, `aac`, `opus`;
    /// rendition N as `h264-high-rN-640x360`).
    public var encodes: [String] { pool.names }

    /// Bytes the encoders have produced so far, every encode counted (for the task's bitrate).
    public var encodedBytes: Int64 { pool.encodedBytes }

    /// Live: makes the outputs exactly `outputs`, matched by URL and settings. Those that stay are
    /// untouched (no reconnect); new ones start at a keyframe forced on the next frame; removed
    /// ones close (`OutputDestination.retire`), and so do encodes no output takes any more.
    public func setOutputs(_ outputs: [ResolvedOutput]) throws {
        var kept: [OutputRouter.Routed] = []
        for entry in router.outputs {
            guard let wanted = outputs.first(where: { $0.isSameDestination(as: entry.output) }) else {
                entry.destination.retire(retirement)
                continue
            }
            if wanted.paused != entry.output.paused {
                entry.destination.setPaused(wanted.paused)
                // Resumed: the recording goes on at a keyframe, now rather than at the GOP's end.
                if !wanted.paused, let format = plan.videoFormat(forRendition: wanted.rendition) { pool.keyframes.request(format) }
            }
            kept.append(OutputRouter.Routed(output: wanted, destination: entry.destination))
        }
        router.set(kept)
        for output in outputs where !kept.contains(where: { $0.output.isSameDestination(as: output) }) {
            try open(output, joinsMidStream: true)
        }
        let needed = plan.encodes(for: router.sinks)
        pool.keep(video: needed.video, audio: needed.audio)
    }

    /// Each output's URL (as given) and live state; offline outputs report `live`.
    public var outputStates: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)] { router.states }

    /// Why the task should end when every output has given up (each named with its last error),
    /// nil while one still runs. Read by the pipeline's thread, a few times a second.
    public var allOutputsFailedReason: String? {
        OutputFault.allOutputsFailedReason(outputStates.map { ($0.output.url, $0.snapshot.state, $0.snapshot.lastError) })
    }

    // MARK: Encoding

    /// Encodes the composite picture for frame `index` (time `index / fps`) once per format and
    /// writes it everywhere, with `sei` in the access unit of the main encode and of every
    /// rendition. Each rendition scales the composite to its size and takes every `frameStep`-th
    /// frame (its pts in its own 1/fps); one that skips this frame carries `sei` on its next.
    public func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage] = []) throws {
        try router.write(picture)
        try pool.encode(picture, frameIndex: frameIndex, sei: sei) { packet, format in
            try router.route(video: packet, from: format)
        }
    }

    /// Takes `count` mixed samples per channel starting at output sample `position`; each audio
    /// encode cuts them into its own frames.
    public func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        try pool.encode(audio: planes, count: count, position: position) { packet, format in
            try router.route(audio: packet, from: format)
        }
    }

    /// Drains the encoders and finishes every container (trailers written, files closed). Live
    /// publishers finish side by side, so one stuck peer costs its own timeout once, not one per
    /// output; outputs removed earlier and still finishing are waited for too.
    public func finish() throws {
        try pool.flush(video: { packet, format in try router.route(video: packet, from: format) },
                       audio: { packet, format in try router.route(audio: packet, from: format) })
        let seconds = Self.finishSeconds
        for entry in router.outputs { entry.destination.startFinishing(within: seconds, retirement) }
        var ended: [String: String?] = [:]
        defer { router.markEnded(ended) }
        for entry in router.outputs {
            do {
                try entry.destination.finishInStep(within: seconds, retirement)
                ended[entry.output.url] = .some(nil)
            } catch {
                ended[entry.output.url] = .some("\(error)")
                throw OutputRouter.failure(of: entry.output, error)
            }
        }
        // `Publisher.finish` cancels after `finishSeconds` and gives the thread 2 s more.
        retirement.wait(timeoutSeconds: seconds + 3)
    }

    /// How long a live output may take to write its queue and trailer at the task's end.
    private static let finishSeconds: Double = 10

    /// Closes everything and deletes the files this set created: a failed offline run leaves no
    /// file that looks complete.
    public func abandon() {
        let files = router.outputs.compactMap { entry -> String? in
            if case .file(let path, _) = entry.output.kind { return path }
            return nil
        }
        for entry in router.outputs { entry.destination.cancel() }
        router.set([])
        for path in files { try? FileManager.default.removeItem(atPath: path) }
    }
}
