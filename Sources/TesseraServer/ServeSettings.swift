import Foundation
import Logging
import TesseraRTP
import TesseraTask
import TesseraObjectStorage
import TesseraService
import TesseraWorkerProtocol

/// The settings of `tessera serve`, resolved once at the edge: a flag wins over its environment
/// variable, which wins over the config file (`--config`, `TESSERA_CONFIG`), which wins over the
/// default. Every layer is checked as strictly as the others, and an error names the flag,
/// variable or file key that holds the bad value.
public struct ServeSettings: Sendable, Equatable {
    public var server: ServerConfiguration
    /// Absolute directory that relative input and image paths resolve against.
    public var mediaRoot: String
    /// Absolute directory that relative output paths resolve against.
    public var outputDirectory: String
    public var maxTasks: Int
    public var maxInputs: Int
    public var maxRegions: Int
    public var maxOutputs: Int
    /// The longest a task may run; nil for no limit.
    public var maxDurationSeconds: Double?
    public var maxWorkerRestarts: Int
    public var workerHangSeconds: Double
    /// Seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double
    /// Seconds a network output may take no bytes before it is taken as lost (a stall).
    public var outputStallSeconds: Double
    /// Free bytes the output directory keeps; below it no new recording task starts here.
    public var minFreeBytes: Int64
    public var rtpPortRange: ClosedRange<Int>
    /// The address written into the SDPs of allocated RTP ports.
    public var rtpAnnounceAddress: String
    /// Where RTP sockets bind when their SDP's address is not this host's, or a wildcard for every
    /// socket (`RTPBindAddress`); nil: every interface. Checked to be an address of this host.
    public var rtpBindAddress: String?
    public var webhookSecret: String?
    /// Deny-list entries as given (each already checked to parse).
    public var deniedHosts: [String]
    public var logLevel: Logger.Level
    /// `--log-format`: text lines or one JSON object a line.
    public var logFormat: LogFormat
    /// The config file read, if any (for the start-up log line).
    public var configFile: String?
    /// Directory of the embedded task store.
    public var stateDirectory: String
    /// `postgres://…` of a shared store; nil for the embedded one. Holds a password: never logged.
    public var storeURL: String?
    public var nodeId: String
    public var advertiseURL: String
    public var nodeTimeoutSeconds: Double
    /// The object store for `s3://` outputs; nil when none is configured. Holds credentials: never logged.
    public var storage: StorageSettings?

    /// What the command line gave, as typed (nil where a flag was absent); values are parsed and
    /// checked here, with the same rules as the environment and the config file.
    public struct Flags: Sendable {
        public var values: [ServeSetting: String]
        /// `--config FILE`.
        public var config: String?

        public init(_ values: [ServeSetting: String] = [:], config: String? = nil) {
            self.values = values
            self.config = config
        }
    }

    /// The variable that names the config file when `--config` is absent.
    public static let configVariable = "TESSERA_CONFIG"

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// - Parameters:
    ///   - environment: the process environment (`ProcessInfo.processInfo.environment`).
    ///   - workingDirectory: what relative paths from flags and variables resolve against, and
    ///     the default media root. Relative paths in the config file resolve against its directory.
    ///   - isLocalAddress: whether an IP address belongs to this host (for `--rtp-bind-address`).
    public init(flags: Flags, environment: [String: String], workingDirectory: String,
                isLocalAddress: (String) -> Bool) throws(Invalid) {
        var configPath = flags.config
        if configPath == nil, let variable = environment[Self.configVariable], !variable.isEmpty { configPath = variable }
        let file = try configPath.map { path throws(Invalid) in
            try ServeConfigFile(path: path, workingDirectory: workingDirectory)
        }
        configFile = configPath
        let sources = SettingSources(flags: flags.values, environment: environment, file: file,
                                     workingDirectory: workingDirectory)

        let host = try sources.string(.host) ?? Defaults.host
        server = ServerConfiguration(
            host: host,
            port: try sources.int(.port) ?? Defaults.port,
            apiToken: try sources.secret(.apiToken, file: .apiTokenFile),
            maxBodyBytes: try sources.int(.maxBodyBytes) ?? Defaults.maxBodyBytes,
            shutdownSeconds: try sources.double(.shutdownSeconds) ?? Defaults.shutdownSeconds,
            console: try sources.bool(.console) ?? Defaults.console)
        mediaRoot = try sources.path(.mediaRoot) ?? SettingSources.absolute(workingDirectory, base: "/")
        outputDirectory = try sources.path(.outputDir) ?? mediaRoot

        maxTasks = try sources.int(.maxTasks) ?? Defaults.maxTasks
        maxInputs = try sources.int(.maxInputs) ?? Defaults.maxInputs
        maxRegions = try sources.int(.maxRegions) ?? Defaults.maxRegions
        maxOutputs = try sources.int(.maxOutputs) ?? Defaults.maxOutputs
        maxDurationSeconds = try sources.double(.maxDurationSeconds)
        maxWorkerRestarts = try sources.int(.maxWorkerRestarts) ?? Defaults.maxWorkerRestarts
        workerHangSeconds = try sources.double(.workerHangSeconds) ?? Defaults.workerHangSeconds
        outputGiveUpSeconds = try sources.double(.outputGiveUpSeconds) ?? Defaults.outputGiveUpSeconds
        outputStallSeconds = try sources.double(.outputStallSeconds) ?? Defaults.outputStallSeconds
        minFreeBytes = Int64(try sources.int(.minFreeBytes) ?? Defaults.minFreeBytes)

        rtpPortRange = Defaults.rtpPorts
        if let found = sources.find(.rtpPorts), let text = try sources.string(.rtpPorts) {
            switch RTPPortRangeSetting.parse(text) {
            case .success(let range): rtpPortRange = range
            case .failure(let error): throw sources.invalid(found, error.message)
            }
        }
        rtpAnnounceAddress = try sources.string(.rtpAddress) ?? Self.defaultAnnounceAddress(host: host)
        rtpBindAddress = try Self.rtpBindAddress(sources, announceAddress: rtpAnnounceAddress, isLocal: isLocalAddress)
        webhookSecret = try sources.secret(.webhookSecret, file: .webhookSecretFile)

        deniedHosts = try sources.list(.denyHosts) ?? []
        do {
            _ = try HostDenyList(deniedHosts)
        } catch {
            throw sources.invalid(sources.find(.denyHosts)!, error.description)
        }

        let level = try sources.string(.logLevel) ?? Defaults.logLevel
        guard let logLevel = Logger.Level(rawValue: level.lowercased()) else {
            let choices = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw sources.invalid(sources.find(.logLevel)!, "expected one of \(choices), got \"\(level)\"")
        }
        self.logLevel = logLevel
        logFormat = try Self.choice(sources, .logFormat, default: Defaults.logFormat)
        server.onShutdown = try Self.choice(sources, .onShutdown, default: Defaults.onShutdown)

        stateDirectory = try sources.path(.stateDir) ?? (outputDirectory as NSString).appendingPathComponent(".tessera")
        storeURL = try sources.string(.store).flatMap { $0.isEmpty ? nil : $0 }
        if let storeURL, let found = sources.find(.store),
           !(storeURL.hasPrefix("postgres://") || storeURL.hasPrefix("postgresql://")) {
            throw sources.invalid(found, "expected postgres://USER[:PASSWORD]@HOST:PORT/DB")
        }
        nodeId = try sources.string(.nodeId) ?? Self.hostName()
        if let found = sources.find(.nodeId), nodeId.isEmpty || nodeId.count > 200 {
            throw sources.invalid(found, "expected a name of 1 to 200 characters")
        }
        let advertiseHost = Self.defaultAnnounceAddress(host: host)
        let bracketed = advertiseHost.contains(":") && !advertiseHost.hasPrefix("[") ? "[\(advertiseHost)]" : advertiseHost
        advertiseURL = try sources.string(.advertiseUrl) ?? "http://\(bracketed):\(server.port)"
        if let found = sources.find(.advertiseUrl),
           !(advertiseURL.hasPrefix("http://") || advertiseURL.hasPrefix("https://")) || URL(string: advertiseURL)?.host == nil {
            throw sources.invalid(found, "expected an http:// or https:// URL with a host, got \"\(advertiseURL)\"")
        }
        while advertiseURL.hasSuffix("/") { advertiseURL.removeLast() }
        nodeTimeoutSeconds = try sources.double(.nodeTimeoutSeconds) ?? Defaults.nodeTimeoutSeconds
        storage = try StorageSettingsReader.read(sources, environment: environment)
    }

    /// A setting that names one of a few words (`--log-format json`), checked like the others.
    private static func choice<Choice: RawRepresentable & CaseIterable>(_ sources: SettingSources, _ setting: ServeSetting,
                                                                        default value: Choice) throws(Invalid) -> Choice
        where Choice.RawValue == String {
        guard let text = try sources.string(setting) else { return value }
        guard let chosen = Choice(rawValue: text.lowercased()) else {
            let choices = Choice.allCases.map(\.rawValue).joined(separator: " or ")
            throw sources.invalid(sources.find(setting)!, "expected \(choices), got \"\(text)\"")
        }
        return chosen
    }

    /// The machine's host name: a node's default id.
    static func hostName() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.isEmpty ? "tessera" : name
    }

    /// Where an SFU is told to send RTP when no `--rtp-address` is given: the listening address,
    /// unless that is a wildcard, which no sender can reach; loopback is then the one address
    /// sure to lead here, and a real deployment sets `--rtp-address`.
    static func defaultAnnounceAddress(host: String) -> String {
        let wildcards: Set<String> = ["0.0.0.0", "::", "[::]", ""]
        return wildcards.contains(host) ? "127.0.0.1" : host
    }

    /// `--rtp-bind-address`: an address of this host, or a wildcard. Without it, the RTP address
    /// when that is one of this host's; else none (every interface), as behind NAT or a
    /// container's port mapping, where the announced address belongs to another machine.
    private static func rtpBindAddress(_ sources: SettingSources, announceAddress: String,
                                       isLocal: (String) -> Bool) throws(Invalid) -> String? {
        guard let found = sources.find(.rtpBindAddress), var text = try sources.string(.rtpBindAddress) else {
            let usable = RTPBindAddress.isAddressLiteral(announceAddress) && !RTPBindAddress.wildcards.contains(announceAddress)
            return usable && isLocal(announceAddress) ? announceAddress : nil
        }
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard RTPBindAddress.isAddressLiteral(text) else {
            throw sources.invalid(found, "expected an IPv4 or IPv6 address of this host (0.0.0.0 or :: for every interface), got \"\(text)\"")
        }
        guard RTPBindAddress.wildcards.contains(text) || isLocal(text) else {
            throw sources.invalid(found, "\(text) is not an address of this host (RTP sockets cannot bind it)")
        }
        return text
    }

    /// The registry's configuration from these settings.
    public func registryConfiguration(workerExecutable: String, udpPorts: UDPPortChecker) -> RegistryConfiguration {
        var configuration = RegistryConfiguration(
            mediaRoot: mediaRoot, outputDirectory: outputDirectory, maxTasks: maxTasks,
            workerExecutable: workerExecutable, logLevel: logLevel.rawValue, udpPorts: udpPorts,
            maxWorkerRestarts: maxWorkerRestarts, workerHangSeconds: workerHangSeconds,
            outputGiveUpSeconds: outputGiveUpSeconds, rtpPortRange: rtpPortRange,
            rtpAnnounceAddress: rtpAnnounceAddress)
        configuration.rtpBindAddress = rtpBindAddress
        configuration.maxInputs = maxInputs
        configuration.maxRegions = maxRegions
        configuration.maxOutputs = maxOutputs
        configuration.maxTaskDurationSeconds = maxDurationSeconds
        configuration.deniedHosts = deniedHosts
        configuration.webhookSecret = webhookSecret
        configuration.nodeId = nodeId
        configuration.workerLeaseSeconds = max(1, nodeTimeoutSeconds / 2)
        configuration.storage = storage
        configuration.outputStallSeconds = outputStallSeconds
        configuration.minFreeBytes = minFreeBytes
        configuration.logFormat = logFormat
        return configuration
    }
}
