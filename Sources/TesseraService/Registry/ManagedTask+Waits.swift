import Foundation

/// What a caller of a task waits for, each with a time limit (`SignalWait`): the worker's exit,
/// a snapshot, the RTP inputs' sockets.
extension ManagedTask {
    /// True once the worker has exited for good, false after `timeoutSeconds`.
    func waitForExit(timeoutSeconds: Double) async -> Bool {
        await SignalWait.first(within: timeoutSeconds, orElse: false) { exited in
            state.withLock { state in
                if state.supervision.isFinal && state.worker == nil { return true }
                state.exitWaiters.append { exited(true) }
                return nil
            }
        }
    }

    /// The worker's current composite as PNG (it answers within 5 s, or the task is not drawing).
    func snapshot() async throws -> Data {
        let (worker, requestId, final): ((any WorkerHandle)?, Int, Bool) = state.withLock { state in
            state.nextRequestId += 1
            return (state.worker, state.nextRequestId, state.supervision.isFinal)
        }
        guard let worker, !final else { throw ServiceError.invalidState("task \"\(id)\" is not running") }
        let result = await SignalWait.first(within: 5, orElse: Result<Data, ServiceError>.failure(.invalidState("no frame within 5 s"))) { answered in
            state.withLock { $0.snapshotWaiters[requestId] = answered }
            worker.send(.snapshot(requestId: requestId))
            return nil
        }
        _ = state.withLock { $0.snapshotWaiters.removeValue(forKey: requestId) }
        return try result.get()
    }

    /// Waits until every RTP input of the task has its ports bound in the worker (its status says
    /// `ready`), the task ends, or `timeoutSeconds` pass: an SFU told to forward right after the
    /// answer must not lose its first packets (a keyframe among them) to a port nobody holds yet.
    func waitUntilRTPInputsReady(timeoutSeconds: Double) async {
        _ = await SignalWait.first(within: timeoutSeconds, orElse: false) { ready in
            state.withLock { state in
                if state.rtpInputsReadyOrEnded { return true }
                state.rtpReadyWaiters.append { ready(true) }
                return nil
            }
        }
    }
}
