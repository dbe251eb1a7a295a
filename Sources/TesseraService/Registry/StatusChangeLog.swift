import Logging
import Synchronization
import TesseraWorkerProtocol

/// What a task's status changes say in the server's log, each once: the task's state (with the
/// reason it stopped or failed), each output's state (live, reconnecting with its last error,
/// given up, finished), each input's, a failed upload, a worker restart, and bursts of late
/// frames (the first late frame after a quiet spell, then how many when it is quiet again).
///
/// Pure: given the previous status it kept and the new one → the lines. The heartbeat statuses
/// that change nothing give no line.
public struct StatusChangeLog: Sendable {
    public struct Line: Sendable, Equatable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String] = [:]

        public init(level: Logger.Level, message: String, metadata: [String: String] = [:]) {
            self.level = level; self.message = message; self.metadata = metadata
        }
    }

    /// A burst of late frames ends after this long without a new one.
    public static let lateQuietSeconds = 10.0

    private var previous: TaskStatus?
    private struct Burst: Sendable { var started: Double; var last: Double; var frames: Int64 }
    private var burst: Burst?
    /// Late frames counted so far, over the task's restarts (a new worker counts from zero).
    private var lateSeen: Int64 = 0

    public init() {}

    public mutating func lines(for status: TaskStatus, now: Double) -> [Line] {
        defer { previous = status }
        var lines: [Line] = []
        let before = previous
        if let before, before.state.isFinal { return [] }  // told already; nothing after the end

        lines += lateFrameLines(status, before: before, now: now)
        if let before {
            let restarts = status.workerRestarts ?? 0, earlier = before.workerRestarts ?? 0
            if restarts > earlier {
                lines.append(Line(level: .warning, message: "worker restarted", metadata: compact([
                    "worker_restarts": String(restarts), "reason": status.reason])))
            }
        }
        lines += inputLines(status, before: before)
        lines += outputLines(status, before: before)
        if status.state != before?.state, let line = taskLine(status, before: before) { lines.append(line) }
        return lines
    }

    private func taskLine(_ status: TaskStatus, before: TaskStatus?) -> Line? {
        var metadata = compact(["state": status.state.rawValue, "reason": status.reason])
        if let before { metadata["previous_state"] = before.state.rawValue }
        switch status.state {
        case .starting:
            // A new task is announced by the request that made it; a restart by its own line.
            return nil
        case .running:
            return Line(level: .info, message: "task running", metadata: metadata)
        case .stopping:
            return Line(level: .info, message: "task stopping", metadata: metadata)
        case .stopped:
            return Line(level: .info, message: "task stopped", metadata: metadata)
        case .failed:
            return Line(level: .warning, message: "task failed", metadata: metadata)
        }
    }

    private func inputLines(_ status: TaskStatus, before: TaskStatus?) -> [Line] {
        var lines: [Line] = []
        for input in status.inputs {
            let earlier = before?.inputs.first { $0.id == input.id }
            guard input.state != (earlier?.state ?? .waiting) else { continue }
            let metadata = compact(["input": input.id, "state": input.state.rawValue,
                                    "previous_state": (earlier?.state ?? .waiting).rawValue, "last_error": input.lastError])
            switch input.state {
            case .live: lines.append(Line(level: .info, message: "input live", metadata: metadata))
            case .waiting: lines.append(Line(level: .warning, message: "input lost", metadata: metadata))
            case .ended: lines.append(Line(level: .info, message: "input ended", metadata: metadata))
            case .failed: lines.append(Line(level: .warning, message: "input failed", metadata: metadata))
            }
        }
        return lines
    }

    private func outputLines(_ status: TaskStatus, before: TaskStatus?) -> [Line] {
        var lines: [Line] = []
        for (index, output) in status.outputs.enumerated() {
            // Outputs are told apart by position; an update that replaced one starts it afresh.
            let earlier = before.flatMap { $0.outputs.indices.contains(index) && $0.outputs[index].url == output.url
                ? $0.outputs[index] : nil }
            let previousState = earlier?.state ?? .connecting
            var metadata = compact(["output": String(index), "url": output.url, "state": output.state.rawValue,
                                    "previous_state": previousState.rawValue, "last_error": output.lastError])
            if output.reconnects > 0 { metadata["reconnects"] = String(output.reconnects) }
            if output.state != previousState {
                switch output.state {
                case .connecting: break
                case .live:
                    lines.append(Line(level: .info, message: previousState == .reconnecting ? "output live again" : "output live",
                                      metadata: metadata))
                case .reconnecting: lines.append(Line(level: .warning, message: "output reconnecting", metadata: metadata))
                case .failed:
                    // While the task runs, a failed output has given up; at the end it just did not finish.
                    let running = status.state == .running || status.state == .starting
                    lines.append(Line(level: .warning, message: running ? "output gave up" : "output failed", metadata: metadata))
                case .paused: lines.append(Line(level: .info, message: "output paused", metadata: metadata))
                case .finished: lines.append(Line(level: .info, message: "output finished", metadata: metadata))
                }
            }
            for upload in output.uploads ?? [] where upload.state == .failed {
                let wasFailed = earlier?.uploads?.contains { $0.file == upload.file && $0.state == .failed } ?? false
                if !wasFailed {
                    lines.append(Line(level: .warning, message: "upload failed", metadata: compact([
                        "output": String(index), "file": upload.file, "reason": upload.reason])))
                }
            }
        }
        return lines
    }

    private mutating func lateFrameLines(_ status: TaskStatus, before: TaskStatus?, now: Double) -> [Line] {
        // A restarted worker counts from zero: what it reports is all new.
        let earlier = before?.lateFrames ?? 0
        let added = status.lateFrames >= earlier ? status.lateFrames - earlier : status.lateFrames
        lateSeen += added
        var lines: [Line] = []
        if var current = burst {
            if added > 0 {
                current.last = now
                current.frames += added
                burst = current
            }
            if now - current.last >= Self.lateQuietSeconds || status.state.isFinal {
                lines.append(Line(level: .info, message: "late frames stopped", metadata: [
                    "late_frames": String(current.frames), "burst_seconds": String(format: "%.1f", current.last - current.started),
                    "late_frames_total": String(lateSeen)]))
                burst = nil
            }
        } else if added > 0 {
            burst = Burst(started: now, last: now, frames: added)
            lines.append(Line(level: .warning, message: "frames leaving late", metadata: [
                "late_frames": String(added), "late_frames_total": String(lateSeen)]))
            if status.state.isFinal { burst = nil }
        }
        return lines
    }

    private func compact(_ values: [String: String?]) -> [String: String] { values.compactMapValues { $0 } }
}

/// The shell of `StatusChangeLog`: one per task, fed every status the task publishes, logging
/// under `tessera.task` with the task's id and node.
final class TaskEventLog: Sendable {
    private let logger: Logger
    private let state = Mutex(StatusChangeLog())

    init(taskId: String, nodeId: String) {
        var logger = Logger(label: "tessera.task")
        logger[metadataKey: "task_id"] = .string(taskId)
        logger[metadataKey: "node"] = .string(nodeId)
        self.logger = logger
    }

    func observe(_ status: TaskStatus, now: Double) {
        let lines = state.withLock { $0.lines(for: status, now: now) }
        for line in lines {
            logger.log(level: line.level, "\(line.message)", metadata: line.metadata.mapValues { .string($0) })
        }
    }
}
