import TesseraWorkerProtocol

/// The status of a task that ended says how everything in it ended: every input `ended` (or
/// `failed`) and every output `finished` (or `failed`), never `live` or `reconnecting` with the
/// task gone. The worker reports its own final states when it ends properly; this settles what
/// it could not (a worker killed, or one that ended before reporting them).
public enum FinalStates {
    public static func settle(_ status: inout TaskStatus) {
        guard status.state.isFinal else { return }
        for index in status.inputs.indices where status.inputs[index].state != .failed {
            status.inputs[index].state = .ended
        }
        for index in status.outputs.indices {
            switch status.outputs[index].state {
            case .finished, .failed: break
            case .connecting, .live, .reconnecting, .paused:
                // Ended with a failed task: what it wrote so far is kept, but it did not end properly.
                if status.state == .failed {
                    status.outputs[index].state = .failed
                    if status.outputs[index].lastError == nil { status.outputs[index].lastError = status.reason }
                } else {
                    status.outputs[index].state = .finished
                }
            }
        }
    }
}
