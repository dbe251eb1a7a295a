import TesseraTask
import TesseraWorkerProtocol

/// The values of `tessera serve`'s settings: each numeric setting's range and every default,
/// written here once. `ServeSettings` parses with them, `--help` prints them, the README's table
/// is checked against them, and no inner initialiser (registry, pipeline, output) has a default
/// of its own: each is handed the resolved value.
extension ServeSetting {
    /// The values a numeric setting takes.
    public enum Bounds: Sendable, Equatable {
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Double>)
    }

    /// nil for settings that are not numbers (or are checked by their own parser: `rtpPorts`,
    /// `storageSpoolBytes`).
    public var bounds: Bounds? {
        switch self {
        case .port: .integer(0...65535)
        case .maxTasks: .integer(1...100_000)
        case .maxInputs: .integer(1...1024)
        case .maxRegions: .integer(1...4096)
        case .maxOutputs: .integer(1...ServeSettings.Defaults.maxOutputs)
        case .maxBodyBytes: .integer(1...Int(Int32.max))
        case .maxDurationSeconds: .number(1...31_622_400)
        case .maxWorkerRestarts: .integer(0...1000)
        case .workerHangSeconds: .number(1...3600)
        case .outputGiveUpSeconds: .number(1...86_400)
        case .outputStallSeconds: .number(1...3600)
        case .minFreeBytes: .integer(0...Int.max)
        case .shutdownSeconds: .number(0...3600)
        case .nodeTimeoutSeconds: .number(2...3600)
        default: nil
        }
    }
}

extension ServeSettings {
    /// Every default of a setting that has one as a value (the others are derived: the output
    /// directory is the media root, the node id the host name…; see `defaultDescription`).
    public enum Defaults {
        public static let host = "127.0.0.1"
        public static let port = 8080
        public static let maxTasks = 16
        public static let maxInputs = TaskLimits.maxInputs
        public static let maxRegions = TaskLimits.maxRegions
        /// SPEC §1: at most 10 outputs; the setting may only lower it.
        public static let maxOutputs = TaskLimits.maxOutputs
        public static let maxBodyBytes = 1 << 20
        public static let maxWorkerRestarts = 2
        public static let workerHangSeconds = 15.0
        public static let outputGiveUpSeconds = 60.0
        public static let outputStallSeconds = 10.0
        /// 256 MiB: below it a node warns and takes no new recording task.
        public static let minFreeBytes = 256 << 20
        public static let shutdownSeconds = 10.0
        public static let nodeTimeoutSeconds = 10.0
        public static let rtpPorts = 20000...20999
        public static let logLevel = "info"
        public static let logFormat = LogFormat.text
        public static let onShutdown = ShutdownAction.resume
        public static let console = true
    }
}
