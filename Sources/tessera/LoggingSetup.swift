import Foundation
import Logging
import Synchronization
import TesseraTask
import TesseraMedia
import TesseraService
import TesseraWorkerProtocol

/// Each subcommand's logging, set up first thing: swift-log bootstrapped to standard error in
/// the chosen format, and FFmpeg's own messages routed into it (label `ffmpeg`, its level mapped,
/// the logging context as `component`), so that with `--log-format json` every line on standard
/// error — the server's, its workers', FFmpeg's — is one JSON object.
enum LoggingSetup {
    /// `tessera serve`: its format and level, `node` on every line. The workers and probes it
    /// starts inherit the format and level through the environment (`TesseraLogging`), so theirs
    /// match from their first line.
    static func serve(format: LogFormat, level: Logger.Level, nodeId: String) {
        setenv(TesseraLogging.formatVariable, format.rawValue, 1)
        setenv(TesseraLogging.levelVariable, level.rawValue, 1)
        setenv(TesseraLogging.nodeVariable, nodeId, 1)
        TesseraLogging.bootstrap(format: format, level: level, metadata: ["node": .string(nodeId)])
        routeFFmpeg()
        // The server opens no media itself, but a still or a preview may call into FFmpeg.
        FFmpeg.configureLogging(verbose: false)
    }

    /// `tessera worker` and `tessera probe`: what their server put in their environment (a
    /// worker's `task_id` and `node` on every line).
    static func child() {
        let settings = TesseraLogging.fromEnvironment(ProcessInfo.processInfo.environment)
        TesseraLogging.bootstrap(format: settings.format, level: settings.level, metadata: settings.metadata)
        routeFFmpeg()
    }

    /// `tessera mix` and the other tools: text to standard error (standard output is the tool's answer).
    static func tool(level: Logger.Level = .info) {
        TesseraLogging.bootstrap(format: .text, level: level)
        routeFFmpeg()
    }

    /// A message FFmpeg repeats (at every reconnection attempt) is logged at its level once a
    /// minute, and at debug in between (`RepeatedLineFilter`).
    private static func routeFFmpeg() {
        let logger = Logger(label: "ffmpeg")
        let repeats = Mutex(RepeatedLineFilter())
        FFmpegLog.route { level, component, message in
            let key = (component ?? "") + "\u{0}" + message
            let level = repeats.withLock { $0.level(for: key, level: TesseraLogging.level(ffmpeg: level), now: MonotonicClock.seconds) }
            logger.log(level: level, "\(message)", metadata: component.map { ["component": .string($0)] })
        }
    }
}
