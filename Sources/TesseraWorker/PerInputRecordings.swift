import Foundation
import Logging
import Synchronization
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol
import TesseraObjectStorage

/// A task's per-participant outputs (`{input}` in the URL) as one place the inputs' threads and
/// the status share: which outputs there are now (an update may add, remove, pause or resume
/// them), every file each has opened, and how each goes. The recorders themselves run on the
/// inputs' threads (`InputRecordings`); this holds no media.
final class PerInputRecordings: Sendable {
    /// Tells the show's timeline of each file opened and finished.
    typealias FileSink = @Sendable (RecordedFile) -> Void

    private struct Entry {
        var output: ResolvedOutput
        var files: [String] = []
        var failures: [String: String] = [:]
        var bytes: Int64 = 0
        var removed = false
    }

    private let taskId: String
    private let state: Mutex<[Entry]>
    /// Earlier runs' `s3://` files (a dead worker's uploads this run completed, objects in the
    /// store): their names are not written over, and the status lists them first.
    private let earlier = Mutex(EarlierPerInputFiles())
    /// Raised by every change of the outputs: each input's thread looks again at its next packet.
    private let generationCounter = Atomic<Int>(0)
    private let onFile: FileSink?
    private let stateChanged: ChangeSignal
    private static let logger = Logger(label: "tessera.recording")

    init(task: ResolvedTask, onFile: FileSink?, stateChanged: ChangeSignal) {
        taskId = task.taskId
        state = Mutex(task.outputs.filter(\.isPerInput).map { Entry(output: $0) })
        self.onFile = onFile
        self.stateChanged = stateChanged
    }

    var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// The per-input outputs in force (an update's, once applied).
    var outputs: [ResolvedOutput] { state.withLock { $0.filter { !$0.removed }.map(\.output) } }

    /// An update's outputs: new per-input ones start on every input, removed ones finish their
    /// files, a changed `paused` pauses or resumes them. Removed outputs stay in the status as finished.
    func setOutputs(_ outputs: [ResolvedOutput]) {
        let wanted = outputs.filter(\.isPerInput)
        let changed = state.withLock { entries -> Bool in
            let before = entries.map { ($0.output, $0.removed) }
            for index in entries.indices {
                if let match = wanted.first(where: { $0.isSameDestination(as: entries[index].output) }) {
                    entries[index].output = match
                    entries[index].removed = false
                } else {
                    entries[index].removed = true
                }
            }
            for output in wanted where !entries.contains(where: { $0.output.isSameDestination(as: output) }) {
                entries.append(Entry(output: output))
            }
            return before.count != entries.count || zip(before, entries).contains { $0.0 != $1.output || $0.1 != $1.removed }
        }
        guard changed else { return }
        generationCounter.add(1, ordering: .releasing)
        stateChanged.notify()
    }

    /// What is known of earlier runs, before any file of this run opens: the uploads' findings
    /// (`runs`: objects in the store, a dead worker's uploads completed) and the files the dead
    /// runs' manifests list (`manifests`, by output URL), listed first in the status.
    func noteEarlierRuns(_ runs: EarlierPerInputFiles, manifests: [String: [String]] = [:]) {
        for file in runs.files.values.joined() {
            Self.logger.notice("task \(taskId): per-participant file \(file) left open by an earlier worker of the task: completed from what reached the store (recovered)")
        }
        var merged = runs
        merged.files = manifests
        for (url, files) in runs.files {
            merged.files[url, default: []] += files.filter { !(manifests[url] ?? []).contains($0) }
        }
        earlier.withLock { $0 = merged }
        if !merged.files.isEmpty { stateChanged.notify() }
    }

    /// Whether a file's path is taken by an earlier run (its object is in the store): the
    /// recorders treat it as existing, so this run's file takes the next name.
    func isTaken(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path) || earlier.withLock { $0.takenSpoolPaths.contains(path) }
    }

    // MARK: Reports from the inputs' threads

    func fileReported(_ file: RecordedFile, output url: String) {
        let isNew = state.withLock { entries -> Bool in
            guard let index = entries.firstIndex(where: { $0.output.url == url }) else { return false }
            guard !entries[index].files.contains(file.url) else { return false }
            entries[index].files.append(file.url)
            return true
        }
        if isNew {
            Self.logger.info("task \(taskId): recording input \(file.input) to \(file.url) from \(Double(file.offsetMicroseconds) / 1e6) s on the task clock")
            stateChanged.notify()
        } else if let end = file.endMicroseconds {
            Self.logger.info("task \(taskId): recording of input \(file.input) finished: \(file.url), until \(Double(end) / 1e6) s")
        }
        onFile?(file)
    }

    /// Told once: the status (`failed`, `lastError`, `failedInputs`), the metric the server makes
    /// of it (`tessera_recording_failed`), and one log line — a later connection of the input
    /// failing alike (a file input's codec again) repeats neither.
    func failed(input: String, output url: String, reason: String) {
        let isNew = state.withLock { entries -> Bool in
            guard let index = entries.firstIndex(where: { $0.output.url == url }) else { return false }
            defer { entries[index].failures[input] = reason }
            return entries[index].failures[input] == nil
        }
        guard isNew else { return }
        Self.logger.error("task \(taskId): recording of input \(input) for \(URLRedaction.redact(url)) failed: \(reason)")
        stateChanged.notify()
    }

    func addBytes(_ bytes: Int64, output url: String) {
        state.withLock { entries in
            if let index = entries.firstIndex(where: { $0.output.url == url }) { entries[index].bytes += bytes }
        }
    }

    /// The recording's own cost on an input's thread, for the log (the closing note's figure).
    /// `droppedOverlap`: audio packets left out because a placement pulled earlier would have
    /// overlapped them with what was written (never squeezed); `clampedVideo`: pictures moved a tick.
    func noteCost(input: String, packets: Int64, nanoseconds: UInt64, droppedOverlap: Int64 = 0, clampedVideo: Int64 = 0) {
        let each = Double(nanoseconds) / Double(packets) / 1000
        Self.logger.info("task \(taskId): input \(input): \(packets) packets recorded, \(String(format: "%.1f", each)) µs each, \(droppedOverlap) audio dropped-overlap, \(clampedVideo) video clamped")
    }

    // MARK: Status

    /// One entry per per-input output: `files` every file of every input (and rejoin), oldest
    /// first, earlier runs' recovered ones before this run's; `failed` when an input's recording
    /// failed (named in `lastError` and `failedInputs`), `paused`, `live` once a file is open, else
    /// `connecting`; finished once the task ended or the output was removed.
    func statuses(taskEnded: Bool) -> [OutputStatus] {
        let earlierFiles = earlier.withLock { $0.files }
        return state.withLock { entries in
            entries.map { entry in
                let state: OutputStatus.State
                if !entry.failures.isEmpty {
                    state = .failed
                } else if taskEnded || entry.removed {
                    state = .finished
                } else if entry.output.paused {
                    state = .paused
                } else {
                    state = entry.files.isEmpty ? .connecting : .live
                }
                let error = entry.failures.sorted { $0.key < $1.key }.map { "input \($0.key): \($0.value)" }.joined(separator: "; ")
                var status = OutputStatus(url: URLRedaction.redact(entry.output.url), state: state, bytes: entry.bytes,
                                          lastError: error.isEmpty ? nil : error)
                status.files = (earlierFiles[entry.output.url] ?? []) + entry.files
                status.failedInputs = entry.failures.isEmpty ? nil : entry.failures.keys.sorted()
                return status
            }
        }
    }
}

extension ResolvedOutput {
    var isPerInput: Bool {
        if case .perInput = kind { return true }
        return false
    }
}
