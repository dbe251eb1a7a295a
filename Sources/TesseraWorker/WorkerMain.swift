import Foundation
import Synchronization
import Logging
import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraObjectStorage
import TesseraPNG
import TesseraWorkerProtocol

/// The body of `tessera worker`: runs one live task for `tessera serve`, which started this
/// process. Commands arrive on standard input; status events leave on standard output when an
/// input, an output or the task changes state, and otherwise once a second as a heartbeat (with
/// the counters); FFmpeg and log text go to standard error. If the server goes away (standard input
/// closes) the task stops properly, so its recordings are finished.
public enum WorkerMain {
    public static func run() -> Int32 {
        FFmpeg.configureLogging(verbose: false)
        let events = LineWriter(descriptor: 1)
        var reader = LineReader(descriptor: 0)
        let decoder = JSONDecoder()
        guard let line = reader.next(), case .start(let start)? = try? decoder.decode(WorkerCommand.self, from: line) else {
            events.send(WorkerEvent(type: .exit, status: failedStatus("the worker got no start command")))
            return 2
        }

        let task = start.plan
        let hold = OutputHold()
        let recordedFiles = RecordedFileUploads()
        let pipeline: TaskRunner = task.mode == .relay ? RelayPipeline(task: task, outputGiveUpSeconds: start.outputGiveUpSeconds,
                                                                                    outputStallSeconds: start.outputStallSeconds)
            : MixPipeline(task: task, outputGiveUpSeconds: start.outputGiveUpSeconds, outputStallSeconds: start.outputStallSeconds,
                          rtpBindAddress: start.rtpBindAddress,
                          outputHold: hold,
                          // Each LL-HLS part once listed: `serve` answers the blocking playlist
                          // requests waiting for it (a few a second per playlist, each sent).
                          hlsParts: { playlist, msn, part in
                              events.send(WorkerEvent(type: .hls, hls: HLSPartEvent(playlist: playlist, msn: msn, part: part)))
                          },
                          recordedFiles: { recordedFiles.recorded($0) })
        if let mix = pipeline as? MixPipeline {
            // For measuring what a viewer sees against when each frame left (bench/latency.py):
            // the machine's CLOCK_MONOTONIC, which every process reads alike.
            let zero = Double(mix.clock.startNanoseconds) / 1_000_000_000
            Logger(label: "tessera.worker").notice(
                "tessera worker \(task.taskId): output clock zero at CLOCK_MONOTONIC \(String(format: "%.6f", zero)) s")
        }
        // `s3://` outputs: checked, recovered and uploaded on a thread of their own.
        let uploads: UploadCoordinator? = {
            guard let storage = start.storage, UploadCoordinator.uploads(task.outputs) else { return nil }
            // With renditions an HLS output is a ladder: a playlist per rendition under a master.
            let hlsRenditions = task.video.map { $0.renditions.isEmpty ? 1 : $0.ladder.count } ?? 1
            return UploadCoordinator(settings: storage, hlsRenditions: hlsRenditions,
                                     changed: { [pipeline] in pipeline.statusChanged.notify() },
                                     hold: { hold.isHeld = $0 })
        }()
        recordedFiles.attach(uploads, timeline: (pipeline as? MixPipeline)?.timeline?.place)
        let finished = Finished()
        let lease = WorkerLease(seconds: start.leaseSeconds)
        let remaining = reader
        let commands = Thread {
            var reader = remaining
            while let line = reader.next() {
                guard let command = try? decoder.decode(WorkerCommand.self, from: line) else { continue }
                handle(command, pipeline: pipeline, lease: lease, events: events)
                if case .update(let plan) = command { uploads?.update(plan.outputs) }
            }
            // The server is gone: end the task properly.
            pipeline.requestStop()
        }
        commands.start()
        let reporter = Thread {
            while !finished.value {
                if lease.expired, !lease.didExpire {
                    // The server has not renewed the lease: it is paused or cut off from the task
                    // store, and another node may soon take this task. Stop before that — and
                    // for sure: a stop that finishes outputs may take seconds on a loaded
                    // machine, so after a short grace the worker leaves whatever is unfinished
                    // (recordings stay playable up to their last fragment).
                    lease.noteExpiry()
                    pipeline.requestStop()
                    Thread.detachNewThread {
                        Thread.sleep(forTimeInterval: leaseExpiryGraceSeconds)
                        guard !finished.value else { return }
                        events.send(WorkerEvent(type: .exit, status: status(of: pipeline, state: .stopped, reason: expiredReason,
                                                                            uploads: uploads),
                                                leaseExpired: true))
                        _exit(0)
                    }
                }
                let report = status(of: pipeline, state: nil, reason: nil, uploads: uploads)
                // Outputs an object store refuses fail in the uploads, not in the pipeline: once
                // every output of the task has failed, the task ends failed as for any output.
                if uploads != nil, let reason = OutputFault.allOutputsFailedReason(
                    report.outputs.map { ($0.url, $0.state == .failed ? Publisher.State.failed : .live, $0.lastError) }) {
                    pipeline.giveUp(reason: reason)
                }
                events.send(WorkerEvent(type: .status, status: report))
                // Woken by a change, the lease running out, or the heartbeat. A burst of changes
                // (every input of a task going silent together) is sent as one status.
                let untilExpiry = lease.didExpire ? nil : lease.secondsLeft
                if pipeline.statusChanged.wait(seconds: min(heartbeatSeconds, untilExpiry ?? heartbeatSeconds)) {
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
        }
        reporter.start()
        // After the reporter starts: the checks before the mix take a store request or a few, and
        // the server must hear from the worker meanwhile.
        uploads?.prepare(task.outputs, inputs: task.inputs.map(\.id))
        // Before the mix starts, so no recorder opens a file yet: earlier runs' names stay theirs.
        if let mix = pipeline as? MixPipeline { recordedFiles.noteEarlierRuns(of: task, in: mix) }
        uploads?.start()

        var exitState = TaskState.stopped
        var reason: String?
        do {
            try pipeline.runTask()
        } catch {
            exitState = .failed
            reason = "\(error)"
        }
        // The recordings are finished: the rest goes up while the reporter still reports.
        uploads?.finish(timeoutSeconds: uploadFinishSeconds)
        finished.value = true
        if lease.didExpire { reason = reason ?? expiredReason }
        // Ended by itself (its maximum duration, idle): say so; a stop on request is the server's to name.
        if exitState == .stopped { reason = reason ?? pipeline.status.reason }
        events.send(WorkerEvent(type: .exit, status: status(of: pipeline, state: exitState, reason: reason, uploads: uploads),
                                leaseExpired: lease.didExpire ? true : nil))
        return exitState == .failed ? 1 : 0
    }

    /// How long a stopped task's worker may spend sending the last parts and playlists. Shorter
    /// than the server's stop timeout; what misses it stays in the spool, and an open multipart
    /// upload is completed from its parts by the task's next worker.
    static let uploadFinishSeconds = 8.0

    /// How often the status goes out when nothing changes: the counters (frames, bytes, fps).
    static let heartbeatSeconds = 1.0

    /// How long a worker whose lease ran out may spend finishing its outputs before it exits
    /// anyway: another node takes the task only well after (`OutageGuard.silenceBeforeClaimSeconds`).
    static let leaseExpiryGraceSeconds = 1.0
    private static let expiredReason = "the worker's lease from its server ran out; stopped so that no other node runs the task twice"

    private static func handle(_ command: WorkerCommand, pipeline: TaskRunner, lease: WorkerLease, events: LineWriter) {
        switch command {
        case .start:
            break
        case .stop:
            pipeline.requestStop()
        case .lease(let seconds):
            lease.renew(seconds: seconds)
        case .update(let task):
            pipeline.update(task)
        case .sei(let injection):
            pipeline.injectSEI(injection)
        case .snapshot(let requestId):
            // Waiting for the next frame must not hold up the command reader.
            Thread.detachNewThread {
                guard let picture = pipeline.snapshot() else {
                    events.send(WorkerEvent(type: .snapshot, requestId: requestId, error: "no picture (audio-only task or not running)"))
                    return
                }
                do {
                    let png = try PNGEncoder.encode(picture)
                    events.send(WorkerEvent(type: .snapshot, requestId: requestId, png: png.base64EncodedString()))
                } catch {
                    events.send(WorkerEvent(type: .snapshot, requestId: requestId, error: "\(error)"))
                }
            }
        }
    }

    private static func status(of pipeline: TaskRunner, state: TaskState?, reason: String?,
                               uploads: UploadCoordinator?) -> WorkerStatus {
        var report = pipeline.status
        if let uploads {
            let byURL = uploads.statuses
            for index in report.outputs.indices { report.outputs[index].apply(uploads: byURL[report.outputs[index].url]) }
        }
        if let state { report.state = state }
        // The pipeline's reason says why it ended by itself; the worker says it once it exits.
        report.reason = reason
        report.cpuSeconds = processCPUSeconds()
        return report
    }

    /// CPU time of this process so far (every thread, user and system): what the task costs.
    /// The server sums it over the task's workers (`TaskStatus.cpuSeconds`).
    static func processCPUSeconds() -> Double? {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return nil }
        return ((Double(time.tv_sec) + Double(time.tv_nsec) / 1e9) * 1000).rounded() / 1000
    }

    private static func failedStatus(_ reason: String) -> WorkerStatus {
        WorkerStatus(state: .failed, reason: reason, frames: 0, fps: 0, bitrateKbps: 0, lateFrames: 0, inputs: [], outputs: [])
    }
}

/// A flag set once by the main thread and read by the reporter thread.
private final class Finished: Sendable {
    private let flag = Atomic<Bool>(false)
    var value: Bool {
        get { flag.load(ordering: .acquiring) }
        set { flag.store(newValue, ordering: .releasing) }
    }
}
