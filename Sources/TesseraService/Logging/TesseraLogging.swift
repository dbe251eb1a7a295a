import Foundation
import Logging
import Synchronization
import TesseraWorkerProtocol

/// How every Tessera process logs (`serve`, its workers and probes, `mix`): `--log-format text`
/// (swift-log's stream handler) or `json` (one object a line, `JSONLogHandler`), to standard
/// error, with the process's own metadata (`node`; a worker's `task_id`) on every line.
public enum TesseraLogging {
    /// What `tessera serve` tells each worker and probe in its environment: they must log in the
    /// server's format before their start command arrives (a failure to read it is logged too).
    public static let formatVariable = "TESSERA_LOG_FORMAT"
    public static let levelVariable = "TESSERA_LOG_LEVEL"
    public static let taskVariable = "TESSERA_TASK_ID"
    public static let nodeVariable = "TESSERA_NODE_ID"

    /// Bootstraps swift-log for this process (once; later calls are ignored by swift-log).
    public static func bootstrap(format: LogFormat, level: Logger.Level, metadata: Logger.Metadata = [:]) {
        LoggingSystem.bootstrap { label in makeHandler(label: label, format: format, level: level, metadata: metadata) }
    }

    public static func makeHandler(label: String, format: LogFormat, level: Logger.Level,
                                   metadata: Logger.Metadata) -> any LogHandler {
        switch format {
        case .json:
            var handler = JSONLogHandler(label: label)
            handler.logLevel = level
            handler.metadata = metadata
            return handler
        case .text:
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            handler.metadata = metadata
            return handler
        }
    }

    /// The environment a worker or probe is started with: the server's own, plus its log format
    /// and level and the task it runs (so its every line, FFmpeg's included, names the task).
    public static func childEnvironment(_ base: [String: String], format: LogFormat, level: String,
                                        taskId: String?, nodeId: String?) -> [String: String] {
        var environment = base
        environment[formatVariable] = format.rawValue
        environment[levelVariable] = level
        environment[taskVariable] = taskId
        environment[nodeVariable] = nodeId
        return environment
    }

    /// What a worker or probe reads back from `childEnvironment` (text at info when unset: run by hand).
    public static func fromEnvironment(_ environment: [String: String])
        -> (format: LogFormat, level: Logger.Level, metadata: Logger.Metadata) {
        let format = environment[formatVariable].flatMap(LogFormat.init(rawValue:)) ?? .text
        let level = environment[levelVariable].flatMap(Logger.Level.init(rawValue:)) ?? .info
        var metadata: Logger.Metadata = [:]
        if let task = environment[taskVariable], !task.isEmpty { metadata["task_id"] = .string(task) }
        if let node = environment[nodeVariable], !node.isEmpty { metadata["node"] = .string(node) }
        return (format, level, metadata)
    }

    /// FFmpeg's level (`AV_LOG_*`) as swift-log's: panic and fatal are critical, error error,
    /// warning warning, info info (FFmpeg's info is chatty: Tessera asks for it only in
    /// `mix --verbose`), verbose debug, debug and trace trace.
    public static func level(ffmpeg: Int32) -> Logger.Level {
        switch ffmpeg {
        case ...8: .critical
        case ...16: .error
        case ...24: .warning
        case ...32: .info
        case ...40: .debug
        default: .trace
        }
    }
}

/// One JSON object a line: `time` (ISO 8601, UTC, milliseconds), `level`, `logger` (the label),
/// `message`, then the metadata flattened into the same object (a nested dictionary's keys
/// joined with dots; a key that would hide one of the four is prefixed with `meta.`).
///
/// Each line leaves in one `write(2)` of at most a few KiB, so the lines of the server and of its
/// workers, which share one standard error, never interleave mid-line.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let own = event.metadata { all.merge(own) { _, new in new } }
        let line = LogLine.json(time: Date(), level: event.level, label: label, message: event.message.description,
                                metadata: all)
        StandardErrorLines.write(line)
    }
}

/// The pure half of `JSONLogHandler`: the text of one line.
public enum LogLine {
    public static func json(time: Date, level: Logger.Level, label: String, message: String,
                            metadata: Logger.Metadata) -> String {
        var out = "{\"time\":\"\(iso8601(time))\",\"level\":\"\(level.rawValue)\",\"logger\":"
        appendString(label, to: &out)
        out += ",\"message\":"
        appendString(message, to: &out)
        var fields: [(String, Logger.Metadata.Value)] = []
        flatten(metadata, prefix: "", into: &fields)
        for (key, value) in fields.sorted(by: { $0.0 < $1.0 }) {
            out += ","
            appendString(reserved.contains(key) ? "meta." + key : key, to: &out)
            out += ":"
            appendValue(value, to: &out)
        }
        out += "}"
        return out
    }

    private static let reserved: Set<String> = ["time", "level", "logger", "message"]

    private static func flatten(_ metadata: Logger.Metadata, prefix: String, into fields: inout [(String, Logger.Metadata.Value)]) {
        for (key, value) in metadata {
            if case .dictionary(let nested) = value {
                flatten(nested, prefix: prefix + key + ".", into: &fields)
            } else {
                fields.append((prefix + key, value))
            }
        }
    }

    private static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &out)
        case .stringConvertible(let item): appendString(item.description, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                appendValue(item, to: &out)
            }
            out += "]"
        case .dictionary(let nested):
            // Only inside arrays (top-level dictionaries are flattened): written as an object.
            out += "{"
            for (index, key) in nested.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                appendString(key, to: &out)
                out += ":"
                appendValue(nested[key]!, to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `2026-11-28T00:41:02.123Z`.
    public static func iso8601(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = min(999, Int((interval - Double(seconds)) * 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
    }
}

/// Whole lines to standard error, one `write(2)` each, in order within the process.
enum StandardErrorLines {
    private static let lock = Mutex(())

    static func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        lock.withLock { _ in
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(2, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0, errno == EINTR { continue }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}

/// FFmpeg repeats itself: an output that cannot connect says `Connection to tcp://… failed` at
/// every attempt, a few times a minute. The first time a message is logged at its own level, and
/// again at most once a `windowSeconds` while it repeats; the repeats in between go to debug (the
/// status and the task's `output reconnecting` line already say what is wrong). Pure: the caller
/// gives the time.
public struct RepeatedLineFilter: Sendable {
    public static let windowSeconds = 60.0
    /// Beyond this many distinct messages, those not logged within the window are forgotten.
    static let capacity = 256
    private var lastLogged: [String: Double] = [:]

    public init() {}

    /// The level to log `key` at now: `level`, or debug for a repeat within the window.
    public mutating func level(for key: String, level: Logger.Level, now: Double) -> Logger.Level {
        if level < .info { return level }
        if let last = lastLogged[key], now - last < Self.windowSeconds { return .debug }
        lastLogged[key] = now
        if lastLogged.count > Self.capacity {
            lastLogged = lastLogged.filter { now - $0.value < Self.windowSeconds }
        }
        return level
    }
}
