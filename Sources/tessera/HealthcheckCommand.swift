import ArgumentParser
import Foundation
import TesseraServer
import TesseraService

/// `tessera healthcheck`: exit 0 when the local `tessera serve` answers `GET /healthz` with 200,
/// else 1. The container image's HEALTHCHECK runs it. It reads the same settings as `serve`
/// (flags, TESSERA_* variables, config file), so it asks the port the server listens on.
struct HealthcheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the local tessera serve answers GET /healthz (for container health checks).",
        shouldDisplay: false
    )

    @Option(help: "Address to ask [default: the serve host; 127.0.0.1 when that is 0.0.0.0, ::1 when it is ::].")
    var host: String?
    @Option(help: "Port to ask [default: the serve port, from TESSERA_PORT or the config file].")
    var port: String?
    @Option(help: "Seconds to wait for each of connect, send and receive.")
    var timeoutSeconds: Int = 3

    func run() throws {
        let settings: ServeSettings
        do {
            var flags: [ServeSetting: String] = [:]
            if let port { flags[.port] = port }
            settings = try ServeSettings(flags: .init(flags), environment: ProcessInfo.processInfo.environment,
                                         workingDirectory: FileManager.default.currentDirectoryPath,
                                         isLocalAddress: UDPPortChecker.host.isLocalAddress)
        } catch {
            throw ValidationError(error.description)
        }
        let target = host ?? Self.reachableAddress(listeningOn: settings.server.host)
        do {
            try HealthProbe.check(host: target, port: settings.server.port, timeoutSeconds: max(1, timeoutSeconds))
        } catch {
            StandardError.line("unhealthy: http://\(target):\(settings.server.port)/healthz: \(error)")
            throw ExitCode(1)
        }
        print("healthy: http://\(target):\(settings.server.port)/healthz")
    }

    /// A wildcard listening address is reached through loopback.
    static func reachableAddress(listeningOn host: String) -> String {
        switch host {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::", "[::]": return "::1"
        default: return host
        }
    }
}
