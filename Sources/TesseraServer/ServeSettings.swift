import Foundation
import Logging

/// The settings of `tessera serve`, resolved once at the edge: a flag wins over its environment
/// variable, which wins over the default. Values from the environment are checked as strictly as
/// flags, and an error names the variable.
public struct ServeSettings: Sendable, Equatable {
    public var server: ServerConfiguration
    /// Absolute directory that relative input and image paths resolve against.
    public var mediaRoot: String
    /// Absolute directory that relative output paths resolve against.
    public var outputDirectory: String
    public var maxTasks: Int
    public var logLevel: Logger.Level
    /// Seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double

    public static let defaultMaxTasks = 16

    /// What the command line gave; nil where the flag was absent.
    public struct Flags: Sendable {
        public var host: String?
        public var port: Int?
        public var mediaRoot: String?
        public var outputDirectory: String?
        public var apiToken: String?
        public var maxTasks: Int?
        public var maxBodyBytes: Int?
        public var shutdownSeconds: Double?
        public var logLevel: String?
        public var outputGiveUpSeconds: Double?

        public init(host: String? = nil, port: Int? = nil, mediaRoot: String? = nil, outputDirectory: String? = nil,
                    apiToken: String? = nil, maxTasks: Int? = nil, maxBodyBytes: Int? = nil,
                    shutdownSeconds: Double? = nil, logLevel: String? = nil, outputGiveUpSeconds: Double? = nil) {
            self.outputGiveUpSeconds = outputGiveUpSeconds
            self.host = host; self.port = port; self.mediaRoot = mediaRoot; self.outputDirectory = outputDirectory
            self.apiToken = apiToken; self.maxTasks = maxTasks; self.maxBodyBytes = maxBodyBytes
            self.shutdownSeconds = shutdownSeconds; self.logLevel = logLevel
        }
    }

    /// The environment variable behind each flag.
    public enum Variable: String, CaseIterable, Sendable {
        case host = "TESSERA_HOST"
        case port = "TESSERA_PORT"
        case mediaRoot = "TESSERA_MEDIA_ROOT"
        case outputDirectory = "TESSERA_OUTPUT_DIR"
        case apiToken = "TESSERA_API_TOKEN"
        case maxTasks = "TESSERA_MAX_TASKS"
        case maxBodyBytes = "TESSERA_MAX_BODY_BYTES"
        case shutdownSeconds = "TESSERA_SHUTDOWN_SECONDS"
        case logLevel = "TESSERA_LOG_LEVEL"
        case outputGiveUpSeconds = "TESSERA_OUTPUT_GIVE_UP_SECONDS"
    }

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// - Parameters:
    ///   - environment: the process environment (`ProcessInfo.processInfo.environment`).
    ///   - workingDirectory: what relative directories resolve against, and the default media root.
    public init(flags: Flags, environment: [String: String], workingDirectory: String) throws {
        let reader = Reader(environment: environment)
        let host = try reader.string(flags.host, .host) ?? "127.0.0.1"
        let port = try reader.int(flags.port, .port, "--port", 0...65535) ?? 8080
        let token = try reader.string(flags.apiToken, .apiToken)
        let maxBodyBytes = try reader.int(flags.maxBodyBytes, .maxBodyBytes, "--max-body-bytes", 1...Int(Int32.max))
            ?? ServerConfiguration.defaultMaxBodyBytes
        let shutdownSeconds = try reader.double(flags.shutdownSeconds, .shutdownSeconds, "--shutdown-seconds", 0...3600) ?? 10
        server = ServerConfiguration(host: host, port: port, apiToken: token, maxBodyBytes: maxBodyBytes,
                                     shutdownSeconds: shutdownSeconds)
        maxTasks = try reader.int(flags.maxTasks, .maxTasks, "--max-tasks", 1...100_000) ?? Self.defaultMaxTasks
        outputGiveUpSeconds = try reader.double(flags.outputGiveUpSeconds, .outputGiveUpSeconds,
                                                "--output-give-up-seconds", 1...86_400) ?? 60

        let base = URL(fileURLWithPath: workingDirectory, isDirectory: true)
        func absolute(_ path: String) -> String {
            URL(fileURLWithPath: path, isDirectory: true, relativeTo: base).standardizedFileURL.path
        }
        mediaRoot = absolute(try reader.string(flags.mediaRoot, .mediaRoot) ?? workingDirectory)
        outputDirectory = try reader.string(flags.outputDirectory, .outputDirectory).map(absolute) ?? mediaRoot

        let level = try reader.string(flags.logLevel, .logLevel) ?? "info"
        guard let logLevel = Logger.Level(rawValue: level.lowercased()) else {
            let choices = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw Invalid(description: "\(flags.logLevel != nil ? "--log-level" : Variable.logLevel.rawValue): "
                                       + "expected one of \(choices), got \"\(level)\"")
        }
        self.logLevel = logLevel
    }

    /// Reads a value from its flag, else its variable; an empty variable counts as unset.
    private struct Reader {
        let environment: [String: String]

        func string(_ flag: String?, _ variable: Variable) throws -> String? {
            if let flag { return flag }
            guard let value = environment[variable.rawValue], !value.isEmpty else { return nil }
            return value
        }

        func int(_ flag: Int?, _ variable: Variable, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            try number(flag, variable, name, range, kind: "an integer")
        }

        func double(_ flag: Double?, _ variable: Variable, _ name: String, _ range: ClosedRange<Double>) throws -> Double? {
            try number(flag, variable, name, range, kind: "a number")
        }

        /// A flag as given, else its variable parsed; either checked against `range`.
        private func number<Value: LosslessStringConvertible & Comparable>(
            _ flag: Value?, _ variable: Variable, _ name: String, _ range: ClosedRange<Value>, kind: String
        ) throws -> Value? {
            let value: Value
            if let flag {
                value = flag
            } else if let text = try string(nil, variable) {
                guard let parsed = Value(text.trimmingCharacters(in: .whitespaces)) else {
                    throw Invalid(description: "\(variable.rawValue): expected \(kind), got \"\(text)\"")
                }
                value = parsed
            } else {
                return nil
            }
            guard range.contains(value) else {
                throw Invalid(description: "\(flag != nil ? name : variable.rawValue): must be from "
                                           + "\(range.lowerBound) to \(range.upperBound), got \(value)")
            }
            return value
        }
    }
}
