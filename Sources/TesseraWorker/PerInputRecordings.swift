import Foundation
import Logging
import Synchronization
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

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

    func failed(input: String, output url: String, reason: String) {
        state.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.output.url == url }) else { return }
            entries[index].failures[input] = reason
        }
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
    /// first; `failed` when an input's recording failed (named in `lastError`), `paused`, `live`
    /// once a file is open, else `connecting`; finished once the task ended or the output was removed.
    func statuses(taskEnded: Bool) -> [OutputStatus] {
        state.withLock { entries in
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
                status.files = entry.files
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
