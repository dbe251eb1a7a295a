import ServiceLifecycle
import TesseraService

/// Runs a node's control loop (`ClusterService.run`) beside the HTTP server until graceful
/// shutdown; the drain itself is `TaskShutdownService`'s, through `ClusterService.shutdown`.
public struct ClusterLoopService: Service {
    let cluster: ClusterService

    public init(cluster: ClusterService) { self.cluster = cluster }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await cluster.run() }
    }
}
