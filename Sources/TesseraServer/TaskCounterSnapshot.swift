import TesseraService
import TesseraWorkerProtocol

/// The counters of SPEC §3's status documents, keyed per item, as `MonotonicTotal` reads them.
/// Output URLs are redacted, so two outputs of one task can show the same text: the key adds the
/// occurrence number to keep them apart.
struct TaskCounterSnapshot: Sendable, Equatable {
    var framesEncoded: [String: Int64] = [:]
    var lateFrames: [String: Int64] = [:]
    var inputFrames: [String: Int64] = [:]
    var inputDrops: [String: Int64] = [:]
    var outputReconnects: [String: Int64] = [:]

    init(_ statuses: [TaskStatus]) {
        for task in statuses {
            framesEncoded[task.taskId] = task.frames
            lateFrames[task.taskId] = task.lateFrames
            for input in task.inputs {
                let key = "\(task.taskId)\u{0}\(input.id)"
                inputFrames[key] = input.frames
                inputDrops[key] = input.drops
            }
            var seen: [String: Int] = [:]
            for output in task.outputs {
                let occurrence = seen[output.url, default: 0]
                seen[output.url] = occurrence + 1
                let key = "\(task.taskId)\u{0}\(output.url)\u{0}\(occurrence)"
                outputReconnects[key] = output.reconnects
            }
        }
    }
}
