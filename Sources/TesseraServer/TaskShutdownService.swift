import Logging
import ServiceLifecycle
import TesseraService

/// Ends every task properly on graceful shutdown (SIGTERM / SIGINT): the registry refuses new
/// tasks (503 `ShuttingDown`), flushes encoders and writes trailers, within the deadline. Then
/// `action` (`--on-shutdown`) decides what becomes of them: `resume`, they run again when a server
/// starts on this task store (a restart or an upgrade does not end a show); `stop`, they end for
/// good, final status `stopped` with the reason "server shut down".
///
/// It goes after the HTTP application in the service group: services shut down in reverse
/// order, so the tasks end first while the API still answers (status reads, 503 to new tasks),
/// and the HTTP server stops after.
public struct TaskShutdownService: Service {
    let service: any TaskService
    let deadlineSeconds: Double
    let action: ShutdownAction
    let logger: Logger

    public init(service: any TaskService, deadlineSeconds: Double, action: ShutdownAction = .resume, logger: Logger) {
        self.service = service
        self.deadlineSeconds = deadlineSeconds
        self.action = action
        self.logger = logger
    }

    public func run() async throws {
        // Returns on graceful shutdown; throws on cancellation, when the tasks must end all the same.
        let cancelled = (try? await gracefulShutdown()) == nil
        logger.info("ending tasks", metadata: ["deadline_s": "\(deadlineSeconds)", "cancelled": "\(cancelled)",
                                               "on_shutdown": "\(action.rawValue)"])
        await service.shutdown(deadlineSeconds: deadlineSeconds, forGood: action == .stop)
        logger.info(action == .stop ? "tasks ended for good (--on-shutdown stop)" : "tasks ended; they resume when a server starts on this task store")
    }
}
