/// One setting of `tessera serve` and its three spellings: the command-line flag, the environment
/// variable and the config-file key. The raw value is the config-file key, named like the flag
/// (`--max-body-bytes` → `maxBodyBytes`), so a user who knows one can guess the others.
public enum ServeSetting: String, CaseIterable, Sendable {
    case host
    case port
    case mediaRoot
    case outputDir
    case rtpPorts
    case rtpAddress
    case rtpBindAddress
    case apiToken
    case apiTokenFile
    case maxTasks
    case maxInputs
    case maxRegions
    case maxOutputs
    case maxBodyBytes
    case maxDurationSeconds
    case maxWorkerRestarts
    case workerHangSeconds
    case outputGiveUpSeconds
    case outputStallSeconds
    case minFreeBytes
    case webhookSecret
    case webhookSecretFile
    case denyHosts
    case shutdownSeconds
    case logLevel
    case logFormat
    case onShutdown
    case stateDir
    case store
    case nodeId
    case advertiseUrl
    case nodeTimeoutSeconds
    case console
    case storageEndpoint
    case storageRegion
    case storageSpoolBytes

    /// The config-file key.
    public var key: String { rawValue }

    /// `--max-body-bytes` for `maxBodyBytes`.
    public var flag: String { "--" + Self.words(rawValue).joined(separator: "-") }

    /// `TESSERA_MAX_BODY_BYTES` for `maxBodyBytes`.
    public var environmentVariable: String {
        "TESSERA_" + Self.words(rawValue).joined(separator: "_").uppercased()
    }

    /// The camel-case name split into lower-case words (`rtpPorts` → `rtp`, `ports`).
    private static func words(_ name: String) -> [String] {
        var words: [String] = [""]
        for character in name {
            if character.isUppercase { words.append("") }
            words[words.count - 1].append(Character(character.lowercased()))
        }
        return words
    }
}
