import Synchronization

/// Runs `operation` but answers within `timeout` whatever it does: a query to a PostgreSQL server
/// that is unreachable, or that accepted the connection and then went silent, must not hang the
/// node that asked (a supervisor blocked on its store renews no lease and stops no worker).
///
/// The operation runs in a task of its own, not a child task, because a task group would wait for
/// a child that ignores cancellation (a query already sent cannot be taken back); on timeout the
/// caller gets a `TaskStoreError` at once, and the operation is cancelled and left to finish.
func withDeadline<T: Sendable>(_ timeout: Duration, _ what: String,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let gate = DeadlineGate<T>()
    let work = Task {
        do { gate.finish(.success(try await operation())) } catch { gate.finish(.failure(error)) }
    }
    let timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        gate.finish(.failure(TaskStoreError("store: \(what): no answer within \(timeout) (is the database reachable?)")))
    }
    defer {
        work.cancel()
        timer.cancel()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { gate.arm($0) }
    } onCancel: {
        gate.finish(.failure(CancellationError()))
    }
}

/// Hands the first of (result, timeout, cancellation) to the waiting caller, once, whichever
/// order the continuation and the outcome arrive in.
private final class DeadlineGate<T: Sendable>: Sendable {
    private enum State {
        case waiting
        case armed(CheckedContinuation<T, any Error>)
        case finished(Result<T, any Error>)
        case done
    }

    private let state = Mutex<State>(.waiting)

    func arm(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            switch state {
            case .waiting:
                state = .armed(continuation)
                return nil
            case .finished(let result):
                state = .done
                return result
            case .armed, .done:
                return nil
            }
        }
        if let early { continuation.resume(with: early) }
    }

    func finish(_ result: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { state in
            switch state {
            case .waiting:
                state = .finished(result)
                return nil
            case .armed(let continuation):
                state = .done
                return continuation
            case .finished, .done:
                return nil
            }
        }
        waiting?.resume(with: result)
    }
}
