import TesseraWorkerProtocol

/// The per-task series of `/metrics`, labelled `task_id` (and `output` / `input`), as Prometheus
/// text: what tells one stream from another. Pure: statuses and the time in, text out.
///
/// - Only this node's tasks: a cluster's nodes list each other's tasks, and two nodes exporting
///   one task's counters would count it twice.
/// - Cardinality is bounded by `--max-tasks`: an ended task's series stay for
///   `endedGraceSeconds` after it ended (and at least one scrape, so its final values are seen),
///   then go. A task already ended when first seen is not exported (another process ran it).
/// - `output` is the output's index in the task's `outputs` (as in `outputs[N].url`), not its
///   URL: an index is short, stable for the task's life, never leaks a stream key, and two
///   outputs whose redacted URLs read alike stay apart. `tessera_output_info` gives each
///   index's redacted URL for dashboards to join on.
/// - Counters never go down within a task: a restarted worker counts from zero again, so what a
///   series counted before is kept (`SeriesCounter`).
public struct TaskSeries: Sendable {
    public static let endedGraceSeconds = 5.0

    private struct Tracked: Sendable {
        var counters: [String: SeriesCounter] = [:]
        /// When the task was first seen final, and whether a scrape has shown it since.
        var endedAt: Double?
        var endedShown = false
        /// Seen final at first sight: never exported.
        var hidden = false
    }
    private var tracked: [String: Tracked] = [:]

    /// One family: its name, type, help, and its samples (labels, value).
    public struct Family: Sendable {
        public var name: String
        public var type: String
        public var help: String
        public var samples: [(labels: [(String, String)], value: Double)] = []
    }

    public init() {}

    /// The families, in a fixed order, for the statuses of one scrape.
    public mutating func families(_ statuses: [TaskStatus], nodeId: String?, now: Double) -> [Family] {
        var cpu = Family(name: "tessera_task_cpu_seconds_total", type: "counter",
                         help: "CPU seconds (user and system) the task's worker processes used, summed over restarts.")
        var frames = Family(name: "tessera_task_frames_encoded_total", type: "counter", help: "Output frames the task encoded.")
        var late = Family(name: "tessera_task_late_frames_total", type: "counter",
                          help: "Output frames of the task that left after their wall-clock time.")
        var restarts = Family(name: "tessera_worker_restarts_total", type: "counter",
                              help: "Times the task's worker process was started again after it died or hung.")
        var running = Family(name: "tessera_task_running", type: "gauge", help: "1 while the task is running, else 0.")
        var outputUp = Family(name: "tessera_output_up", type: "gauge",
                              help: "1 while the output is live (its destination takes bytes), else 0; output is its index.")
        var outputInfo = Family(name: "tessera_output_info", type: "gauge",
                                help: "The redacted URL of each output index, value 1.")
        var outputBytes = Family(name: "tessera_output_bytes_total", type: "counter", help: "Bytes written to the output.")
        var inputUp = Family(name: "tessera_input_up", type: "gauge", help: "1 while the input is live, else 0.")
        var packetsLost = Family(name: "tessera_input_packets_lost_total", type: "counter",
                                 help: "RTP packets of the input lost on the way (RTP inputs only).")
        var backlog = Family(name: "tessera_upload_backlog_bytes", type: "gauge",
                             help: "Bytes recorded by the task but not yet in object storage.")
        var recordingFailed = Family(name: "tessera_recording_failed", type: "gauge",
                                     help: "1 for each input whose per-participant recording (output is its index) failed: "
                                         + "not written (a codec the container cannot hold, a write error) or not uploaded.")

        var seen = Set<String>()
        for status in statuses where nodeId == nil || status.node == nil || status.node == nodeId {
            let id = status.taskId
            seen.insert(id)
            var task = tracked[id] ?? Tracked(hidden: status.state.isFinal)
            defer { tracked[id] = task }
            if !status.state.isFinal {
                // Running (again: a task id used anew after its task ended): exported until it ends.
                task.hidden = false
                task.endedAt = nil
                task.endedShown = false
            }
            if task.hidden { continue }
            if status.state.isFinal {
                if let endedAt = task.endedAt, now - endedAt >= Self.endedGraceSeconds, task.endedShown { continue }
                if task.endedAt == nil { task.endedAt = now }
                task.endedShown = true
            }
            let taskLabel = [("task_id", id)]
            func count(_ family: inout Family, _ key: String, _ value: Double, _ labels: [(String, String)]) {
                var counter = task.counters[key] ?? SeriesCounter()
                family.samples.append((labels, counter.observe(value)))
                task.counters[key] = counter
            }
            count(&cpu, "cpu", status.cpuSeconds ?? 0, taskLabel)
            count(&frames, "frames", Double(status.frames), taskLabel)
            count(&late, "late", Double(status.lateFrames), taskLabel)
            count(&restarts, "restarts", Double(status.workerRestarts ?? 0), taskLabel)
            running.samples.append((taskLabel, status.state == .running ? 1 : 0))
            var waiting: Int64 = 0
            for (index, output) in status.outputs.enumerated() {
                let labels = taskLabel + [("output", String(index))]
                outputUp.samples.append((labels, output.state == .live ? 1 : 0))
                outputInfo.samples.append((labels + [("url", output.url)], 1))
                count(&outputBytes, "bytes\u{0}\(index)", Double(output.bytes), labels)
                waiting += (output.uploads ?? []).reduce(0) { $0 + max(0, $1.waitingBytes) }
                for input in Self.failedRecordings(output) {
                    recordingFailed.samples.append((labels + [("input", input)], 1))
                }
            }
            for input in status.inputs {
                let labels = taskLabel + [("input", input.id)]
                inputUp.samples.append((labels, input.state == .live ? 1 : 0))
                if let packets = input.packets {
                    count(&packetsLost, "lost\u{0}\(input.id)", Double(packets.lost), labels)
                }
            }
            backlog.samples.append((taskLabel, Double(waiting)))
        }
        // Tasks no longer listed (forgotten): nothing to keep.
        tracked = tracked.filter { seen.contains($0.key) }
        return [cpu, frames, late, restarts, running, outputUp, outputInfo, outputBytes, inputUp, packetsLost, backlog,
                recordingFailed]
    }

    /// The inputs whose per-participant recording in `output` failed: its recorder's
    /// (`failedInputs`) and those a file of which the store did not take (`uploads[].input`).
    public static func failedRecordings(_ output: OutputStatus) -> [String] {
        let uploads = (output.uploads ?? []).filter { $0.state == .failed }.compactMap(\.input)
        return Array(Set((output.failedInputs ?? []) + uploads)).sorted()
    }

    /// Prometheus text exposition (format 0.0.4) of `families`.
    public static func text(_ families: [Family]) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for sample in family.samples {
                out += family.name
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " " + number(sample.value) + "\n"
            }
        }
        return out
    }

    /// Label values: backslash, double quote and newline escaped.
    public static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// One counter series over restarts: a value that drops (a new worker counting from zero) keeps
/// what the old one had counted.
struct SeriesCounter: Sendable, Equatable {
    private var last: Double = 0
    private var retired: Double = 0

    mutating func observe(_ value: Double) -> Double {
        let value = max(0, value)
        if value < last { retired += last }
        last = value
        return retired + value
    }
}
