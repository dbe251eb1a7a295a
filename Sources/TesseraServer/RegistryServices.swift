import ServiceLifecycle
import TesseraService

/// Kills hung workers (`TaskRegistry.runWatchdog`) beside the HTTP server, until graceful shutdown.
public struct WatchdogService: Service {
    let registry: TaskRegistry

    public init(registry: TaskRegistry) { self.registry = registry }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await registry.runWatchdog() }
    }
}

/// Runs every task's webhook deliveries as child tasks (`WebhookNotifier.runDeliveries`). It is
/// one of the group's `lastToStop` services: a graceful shutdown ends the tasks (and waits for
/// their last events) before it stops delivering, and events of tasks resumed at startup wait for
/// it to start.
public struct WebhookDeliveryService: Service {
    let notifier: WebhookNotifier

    public init(notifier: WebhookNotifier) { self.notifier = notifier }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await notifier.runDeliveries() }
    }
}
