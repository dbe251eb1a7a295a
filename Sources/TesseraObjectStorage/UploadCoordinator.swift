import Foundation
import Synchronization
import TesseraTask

/// A worker's uploads to object storage: every `s3://` output of its task, mirrored from the
/// spool into the store on one thread of its own, so a slow or absent store never holds up the
/// pipeline (the muxers write to local files; this thread only reads them).
///
/// Before the pipeline starts, `prepare` checks each bucket (and the credentials) with a request,
/// completes the multipart uploads that a dead worker of this task left open (from the parts
/// already in the store, so the recording up to the loss is a playable object), and fetches a
/// playlist an earlier run left so HLS continues it. Then `start` runs the loop; `finish` (the
/// pipeline has written its trailers) sends the rest, within a deadline.
///
/// Threads: `update`, `finish`, `statuses` and `mustHold` are called from the worker's threads;
/// the uploads run on the coordinator's thread, the only one that steps an uploader once it is
/// in `entries`. The coordinator's own state is in `state` (a `Mutex`); the thread sleeps on
/// `wake`, which `update` and `finish` signal.
public final class UploadCoordinator: Sendable {
    /// An upload: its uploader is stepped only by the coordinator's thread (and read by
    /// `publish` under the `Mutex`), which is what makes it safe to hold here (hence `@unchecked`).
    struct Entry: @unchecked Sendable {
        let outputURL: String
        /// `s3://BUCKET/KEY` (read here, never from the uploader, which the thread owns).
        let file: String
        let uploader: any ObjectUploader
        /// Set when the output left the plan: its file is taken as finished after the grace
        /// the pipeline gives a removed output to write its trailer.
        var removedAt: Double?
        /// A per-participant file (`UploadCoordinator+PerInput`): it leaves with its recorder's
        /// report, not with the plan's outputs.
        var perInput = false
        /// Its recorder finished it: the uploader is told at its next step.
        var writerFinished = false
        /// A per-participant file's input, named in its status.
        var input: String?

        /// The uploader's status, with the input it records.
        var status: ObjectUploadStatus {
            var status = uploader.status
            status.input = input
            return status
        }
    }

    struct State {
        var entries: [Entry] = []
        /// Finished uploads and recovered ones, by output URL, for the status.
        var settled: [String: [ObjectUploadStatus]] = [:]
        /// Per output URL, the statuses last read from its live uploaders.
        var published: [String: [ObjectUploadStatus]] = [:]
        /// Buckets found unusable at `prepare` (missing, credentials refused), with the reason.
        var refusedBuckets: [String: String] = [:]
        var finishing = false
        var stopped = false
        var holding = false
        var budget: SpoolBudget
        /// The plan's `s3://` per-participant outputs, which files are matched against.
        var perInputOutputs: [ResolvedOutput] = []
        /// The object sent once every other upload is done (the timeline manifest).
        var last: LastObject?
        /// Earlier runs' manifests a killed worker left unsent, sent before `last`.
        var earlierManifests: [LastObject] = []
        /// Every per-participant file handed in so far (a late repeat of a report is not a new upload).
        var perInputFiles: Set<String> = []
        /// What `prepare` found of earlier runs' per-participant files (`UploadCoordinator+PerInput`).
        var earlierRuns = EarlierPerInputFiles()
    }

    let client: S3Client
    private let settings: StorageSettings
    let state: Mutex<State>
    /// Signalled when there is news for the thread (an output came or went, the task ends); a
    /// signal given while the thread works is kept, so none is lost.
    let wake = DispatchSemaphore(value: 0)
    /// Signalled once when the thread ends.
    private let done = DispatchSemaphore(value: 0)
    let changed: @Sendable () -> Void
    private let setHold: @Sendable (Bool) -> Void

    /// Seconds a removed output's publisher gets to write its trailer (`OutputSet` gives it 2 s).
    static let removalGraceSeconds = 4.0

    /// How many renditions each HLS output publishes: 1, or the task's ladder (the main size and
    /// `encoder.video.renditions`), each a media playlist under one master.
    private let hlsRenditions: Int

    /// `changed`: an upload's status changed; `hold`: recordings must hold (true) or may go on.
    /// `hlsRenditions`: the task's ladder size, 1 without renditions.
    public init(settings: StorageSettings, hlsRenditions: Int = 1, changed: @escaping @Sendable () -> Void,
                hold: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.hlsRenditions = max(1, hlsRenditions)
        setHold = hold
        self.settings = settings
        client = S3Client(settings)
        state = Mutex(State(budget: SpoolBudget(limitBytes: settings.spoolBytes)))
        self.changed = changed
    }

    /// Whether a task has anything for this coordinator.
    public static func uploads(_ outputs: [ResolvedOutput]) -> Bool { outputs.contains { $0.upload != nil } }

    // MARK: Worker side

    /// Checks buckets, completes abandoned uploads and fetches earlier playlists (each store
    /// call bounded; an unreachable store is left to the retries of the loop).
    /// `inputs`: the task's input ids, whose per-participant objects already in the store keep
    /// their names (`earlierRuns`).
    public func prepare(_ outputs: [ResolvedOutput], inputs: [String] = []) {
        for output in outputs {
            guard let location = output.upload else { continue }
            if state.withLock({ $0.refusedBuckets[location.bucket] == nil }) {
                do {
                    try client.checkBucket(location.bucket)
                } catch where error.isPermanent {
                    state.withLock { $0.refusedBuckets[location.bucket] = "\(error)" }
                    continue
                } catch {
                    // Not reachable now: the uploads retry.
                    continue
                }
            }
            switch output.kind {
            case .file(_, let container):
                let recovered = AbandonedUploads.complete(client, location: location, layout: container == .ts ? .transportStream : .fragmentedMP4)
                if !recovered.isEmpty { state.withLock { $0.settled[output.url, default: []] += recovered } }
            case .perInput:
                preparePerInput(output, location: location, inputs: inputs)
            case .hls(let hls):
                for playlist in playlists(of: hls) {
                    let mirror = HLSMirror(bucket: location.bucket, key: location.key(ofSpoolPath: playlist.playlist),
                                           playlistPath: playlist.playlist, client: client, deletesExpired: hls.playlistType == .live)
                    try? mirror.fetchEarlierPlaylist()
                }
            default:
                break
            }
        }
        update(outputs)
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "tessera-upload"
        thread.start()
    }

    /// The plan's outputs now: new `s3://` outputs start uploading; removed ones finish.
    public func update(_ outputs: [ResolvedOutput]) {
        let now = MonotonicClock.seconds
        state.withLock { state in
            state.perInputOutputs = outputs.filter { output in
                if case .perInput = output.kind { return output.upload != nil } else { return false }
            }
            for index in state.entries.indices where state.entries[index].removedAt == nil && !state.entries[index].perInput {
                let entry = state.entries[index]
                if !outputs.contains(where: { $0.url == entry.outputURL && Self.file(of: $0) == entry.file }) {
                    state.entries[index].removedAt = now
                }
            }
            for output in outputs {
                guard let file = Self.file(of: output),
                      !state.entries.contains(where: { $0.removedAt == nil && $0.file == file }),
                      let uploader = makeUploader(output) else { continue }
                // Not yet seen by the thread: it may be told here.
                if let reason = output.upload.flatMap({ state.refusedBuckets[$0.bucket] }) { uploader.giveUp(reason) }
                state.entries.append(Entry(outputURL: output.url, file: file, uploader: uploader))
            }
        }
        wake.signal()
    }

    /// The pipeline has finished its outputs: sends what is left, waits at most `seconds`, and
    /// marks what did not make it `failed` (a multipart upload stays open; the next worker of
    /// the task completes it from its parts).
    public func finish(timeoutSeconds seconds: Double) {
        state.withLock { $0.finishing = true }
        wake.signal()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            state.withLock { $0.stopped = true }
            wake.signal()
            // The thread ends at its next check (a request in flight has its own deadline).
            if done.wait(timeout: .now() + 2) == .success {
                state.withLock { state in
                    for entry in state.entries { entry.uploader.giveUp("the store did not take the rest within \(Int(seconds)) s of the task's end") }
                    publish(&state)
                }
            }
        }
        client.shutdown()
    }

    /// Each output's files as they go up, by the output's URL as given.
    public var statuses: [String: [ObjectUploadStatus]] {
        state.withLock { state in
            var all = state.settled
            for (url, list) in state.published { all[url, default: []] += list }
            return all
        }
    }

    /// True while the spool is over its bound: recordings hold their packets until it drains.
    public var mustHold: Bool { state.withLock { $0.holding } }

    // MARK: Uploader thread

    private func run() {
        while true {
            let (work, ending, stop) = state.withLock { ($0.entries, $0.finishing, $0.stopped) }
            if stop { return }
            // Uploaders are only ever touched by this thread: it tells them their file is finished.
            let now = MonotonicClock.seconds
            for entry in work where ending || entry.writerFinished || entry.removedAt.map({ now - $0 >= Self.removalGraceSeconds }) ?? false {
                entry.uploader.finish()
            }
            var progressed = false
            for entry in work {
                if entry.uploader.step(nowSeconds: MonotonicClock.seconds) == .progressed { progressed = true }
                state.withLock { publish(&$0) }
            }
            let active = state.withLock { state -> Bool in
                state.entries.removeAll { entry in
                    guard entry.uploader.isDone else { return false }
                    state.settled[entry.outputURL, default: []].append(entry.status)
                    state.budget.set(entry.file, waitingBytes: 0)
                    return true
                }
                publish(&state)
                return !state.entries.isEmpty
            }
            if ending && !active {
                sendLast()
                return
            }
            // Nothing sent: sleep until there is news, or a quarter second, the pace at which a
            // spool file's new bytes and a retry's due time are looked at again (a file that grows
            // tells nobody).
            if !progressed { _ = wake.wait(timeout: .now() + 0.25) }
        }
    }

    /// Copies the uploaders' statuses for `statuses` and recomputes the spool's hold. Inside the
    /// `Mutex`, on the uploader thread (or once it has ended): it reads the uploaders.
    func publish(_ state: inout State) {
        var next: [String: [ObjectUploadStatus]] = [:]
        for entry in state.entries {
            let status = entry.status
            next[entry.outputURL, default: []].append(status)
            state.budget.set(status.file, waitingBytes: status.waitingBytes)
        }
        let hold = state.budget.mustHold(wasHolding: state.holding)
        if hold != state.holding { setHold(hold) }
        if next != state.published || hold != state.holding {
            state.published = next
            state.holding = hold
            changed()
        }
    }

    /// The output's uploader, with its thumbnails (if it takes them) riding along.
    private func makeUploader(_ output: ResolvedOutput) -> (any ObjectUploader)? {
        ThumbnailMirror.attach(to: makeMediaUploader(output), output: output, client: client)
    }

    private func makeMediaUploader(_ output: ResolvedOutput) -> (any ObjectUploader)? {
        guard let location = output.upload else { return nil }
        switch output.kind {
        case .file(let path, let container):
            return MultipartRecording(bucket: location.bucket, key: location.key(ofSpoolPath: path), path: path, client: client,
                                      transportStream: container == .ts)
        case .hls(let hls):
            let mirrors = playlists(of: hls).map { playlist in
                HLSMirror(bucket: location.bucket, key: location.key(ofSpoolPath: playlist.playlist), playlistPath: playlist.playlist,
                          client: client, deletesExpired: hls.playlistType == .live)
            }
            guard hlsRenditions > 1 else { return mirrors.first }
            return HLSLadderMirror(bucket: location.bucket, masterKey: location.key(ofSpoolPath: hls.playlist),
                                   masterPath: hls.playlist, variants: mirrors, client: client)
        default:
            return nil
        }
    }

    /// The media playlists an HLS output writes: its own, or with renditions one per rendition
    /// (`room_r0.m3u8`, …) beside the master at the output's path (`HLSLadderPlan`).
    private func playlists(of hls: HLSSettings) -> [HLSSettings] {
        hlsRenditions > 1 ? HLSLadderPlan(hls, renditions: hlsRenditions).variants : [hls]
    }

    /// `s3://BUCKET/KEY` of the file an output writes now.
    private static func file(of output: ResolvedOutput) -> String? {
        guard let location = output.upload else { return nil }
        switch output.kind {
        case .file(let path, _): return "s3://\(location.bucket)/\(location.key(ofSpoolPath: path))"
        case .hls(let hls): return "s3://\(location.bucket)/\(location.key(ofSpoolPath: hls.playlist))"
        default: return nil
        }
    }
}
