import TesseraTask
import TesseraWorkerProtocol

/// The participants and (redacted) outputs of the document in force, and what a worker's report
/// means against them. A report can predate the latest update: it is fitted to the document, so a
/// status never loses a participant an update has already answered for. Pure.
struct TaskShape: Sendable, Equatable {
    var inputIds: [String]
    /// The inputs that receive RTP: a `POST` or `PATCH` waits for their sockets.
    var rtpInputIds: Set<String>
    var outputs: [Output]

    struct Output: Sendable, Equatable {
        /// As the document gives it (the key of its recorded files).
        var url: String
        /// As statuses show it.
        var redacted: String
    }

    init(_ plan: ResolvedTask) {
        inputIds = plan.inputs.map(\.id)
        rtpInputIds = Set(plan.inputs.filter { if case .rtpSDP = $0.source { return true } else { return false } }.map(\.id))
        outputs = plan.outputs.map { Output(url: $0.url, redacted: URLRedaction.redact($0.url)) }
    }

    /// The status of a worker that has reported nothing yet.
    var startingStatus: WorkerStatus {
        WorkerStatus(state: .starting, reason: nil, frames: 0, fps: 0, bitrateKbps: 0, lateFrames: 0,
                     inputs: inputIds.map { InputStatus(id: $0, state: .waiting) },
                     outputs: outputs.map { OutputStatus(url: $0.redacted, state: .connecting) })
    }

    /// Keeps what the worker reported for the document's participants and outputs, adds the ones
    /// it has not reported yet (waiting / connecting) and drops removed ones; each output lists
    /// the files it has written (`files`, by its URL as given).
    func fit(_ status: inout WorkerStatus, files: (String) -> [String]?) {
        status.inputs = inputIds.map { id in status.inputs.first(where: { $0.id == id }) ?? InputStatus(id: id, state: .waiting) }
        // Outputs are matched by redacted URL, in order (two keys on one path redact alike).
        var unused = status.outputs
        status.outputs = outputs.map { output in
            var entry: OutputStatus
            if let index = unused.firstIndex(where: { $0.url == output.redacted }) {
                entry = unused.remove(at: index)
            } else {
                entry = OutputStatus(url: output.redacted, state: .connecting)
            }
            // A per-participant output lists its files itself (one per input and rejoin).
            entry.files = files(output.url) ?? entry.files
            return entry
        }
    }

    /// Whether every RTP input of the document has its ports bound in the worker (its status says `ready`).
    func rtpInputsReady(_ status: WorkerStatus) -> Bool {
        status.inputs.allSatisfy { input in !rtpInputIds.contains(input.id) || input.ready == true }
    }
}
