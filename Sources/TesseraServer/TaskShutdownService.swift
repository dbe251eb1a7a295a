import Logging
import ServiceLifecycle
import TesseraService

/// Ends every task properly on graceful shutdown (SIGTERM / SIGINT): the registry refuses new
/// tasks (503 `ShuttingDown`), flushes encoders and writes trailers, within the deadline.
///
/// It goes after the HTTP application in the service group: services shut down in reverse
/// order, so the tasks end first while the API still answers (status reads, 503 to new tasks),
/// and the HTTP server stops after.
public struct TaskShutdownService: Service {
    let service: any TaskService
    let deadlineSeconds: Double
    let logger: Logger

    public init(service: any TaskService, deadlineSeconds: Double, logger: Logger) {
        self.service = service
        self.deadlineSeconds = deadlineSeconds
        self.logger = logger
    }

    public func run() async throws {
        // Returns on graceful shutdown; throws on cancellation, when the tasks must end all the same.
        let cancelled = (try? await gracefulShutdown()) == nil
        logger.info("ending tasks", metadata: ["deadline_s": "\(deadlineSeconds)", "cancelled": "\(cancelled)"])
        await service.shutdown(deadlineSeconds: deadlineSeconds)
        logger.info("tasks ended")
    }
}
