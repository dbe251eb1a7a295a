/// What the HTTP layer needs to know, resolved once at the edge (`tessera serve` reads flags and
/// environment into it); the routes trust it as given.
public struct ServerConfiguration: Sendable, Equatable {
    /// Address to bind, `127.0.0.1` by default (`0.0.0.0` in a container).
    public var host: String
    public var port: Int
    /// When set, every route but `/healthz` needs `Authorization: Bearer <token>`.
    public var apiToken: String?
    /// Largest request body accepted; a larger one is refused with 413 before it is read.
    public var maxBodyBytes: Int
    /// How long a graceful shutdown (SIGTERM / SIGINT) gives running tasks to end properly.
    public var shutdownSeconds: Double
    /// Serve the operator console at `/console` (`--console false` turns it off).
    public var console: Bool
    /// What SIGTERM does to running tasks once they ended properly (`--on-shutdown`).
    public var onShutdown: ShutdownAction = ServeSettings.Defaults.onShutdown

    /// Unset values are `tessera serve`'s defaults (`ServeSettings.Defaults`).
    public init(host: String = ServeSettings.Defaults.host, port: Int = ServeSettings.Defaults.port, apiToken: String? = nil,
                maxBodyBytes: Int = ServeSettings.Defaults.maxBodyBytes,
                shutdownSeconds: Double = ServeSettings.Defaults.shutdownSeconds,
                console: Bool = ServeSettings.Defaults.console) {
        self.host = host
        self.port = port
        // An empty token would make every `Bearer ` header pass: treat it as no token.
        self.apiToken = apiToken.flatMap { $0.isEmpty ? nil : $0 }
        self.maxBodyBytes = maxBodyBytes
        self.shutdownSeconds = shutdownSeconds
        self.console = console
    }
}

/// `--on-shutdown`: what a graceful shutdown (SIGTERM / SIGINT) does to the node's running tasks
/// once they have ended properly.
public enum ShutdownAction: String, Sendable, Equatable, CaseIterable {
    /// They start again when a server starts on this task store (this node again, or another
    /// node of the cluster): a restart or an upgrade does not end a show.
    case resume
    /// They end for good: final status `stopped`, reason "server shut down".
    case stop
}
