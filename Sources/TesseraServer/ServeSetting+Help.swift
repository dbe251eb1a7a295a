import TesseraTask
import TesseraObjectStorage

/// What each setting means and its default, in one table that `tessera serve --help` prints and
/// the tests check against the README.
extension ServeSetting {
    /// One sentence on what the setting does.
    public var summary: String {
        switch self {
        case .host: return "Address to listen on; 0.0.0.0 for every interface."
        case .port: return "Port to listen on."
        case .mediaRoot: return "Directory relative input and image paths resolve against; file inputs must stay under it."
        case .outputDir: return "Directory relative output paths resolve against; file outputs must stay under it."
        case .rtpPorts: return "UDP ports for rtp.allocate inputs, as FIRST-LAST (even FIRST, 1024–65535, at least 2 ports)."
        case .rtpAddress: return "Address written into the SDPs of allocated RTP ports: where an SFU sends its RTP."
        case .rtpBindAddress: return "Local address RTP sockets bind when an SDP's address is not one of this host's (NAT); 0.0.0.0 or :: binds every interface for every input."
        case .apiToken: return "Bearer token every route but /healthz then requires. Prefer the environment or a file: command lines are visible to other users."
        case .apiTokenFile: return "File holding the API token (trailing newline ignored), e.g. a container secret."
        case .maxTasks: return "Most tasks running at once; more is 429 with Retry-After."
        case .maxInputs: return "Most inputs one task may have; more is 400."
        case .maxRegions: return "Most layout regions one task may have; more is 400."
        case .maxOutputs: return "Most outputs one task may have (1–10); more is 400."
        case .maxBodyBytes: return "Largest request body in bytes; larger is 413."
        case .maxDurationSeconds: return "Longest a task may run: a larger maxDurationSeconds is 400, and a task without one stops there."
        case .maxWorkerRestarts: return "Times a crashed or hung worker is restarted before its task is failed."
        case .workerHangSeconds: return "Seconds a worker may report nothing before it is taken as hung and restarted."
        case .outputGiveUpSeconds: return "Seconds a dropped output keeps reconnecting before it is failed; the task goes on for the others."
        case .outputStallSeconds: return "Seconds a network output may have no bytes accepted by its destination before it is taken as lost (named a stall) and reconnected."
        case .minFreeBytes: return "Free bytes the output directory must keep: below it the node logs a warning, /readyz says so and new recording tasks go to other nodes or are refused (503)."
        case .webhookSecret: return "Key of the HMAC-SHA256 signature on webhook bodies."
        case .webhookSecretFile: return "File holding the webhook secret (trailing newline ignored)."
        case .denyHosts: return "Comma-separated hosts and CIDR blocks input and output URLs may not name or resolve to (e.g. 169.254.0.0/16,metadata.internal)."
        case .shutdownSeconds: return "Seconds a graceful shutdown (SIGTERM) gives running tasks to end."
        case .logLevel: return "trace, debug, info, notice, warning, error or critical."
        case .logFormat: return "text (one line a message) or json (one JSON object a line, with task_id on every line about a task), for the server, its workers and FFmpeg's messages."
        case .onShutdown: return "What SIGTERM does to running tasks once they are ended properly: resume (they start again when a server starts on this task store) or stop (they end for good, reason \"server shut down\")."
        case .stateDir: return "Directory of the embedded task store (SQLite): a node restarted on it resumes its tasks."
        case .store: return "Task store shared by a cluster, as postgres://USER[:PASSWORD]@HOST:PORT/DB; the embedded store in --state-dir when absent."
        case .nodeId: return "This node's name in the cluster and in task statuses."
        case .advertiseUrl: return "How the other nodes reach this node's API (requests for its tasks are passed on there)."
        case .nodeTimeoutSeconds: return "A node that has not renewed its lease for this long is lost and its tasks start on other nodes."
        case .console: return "Serve the operator console at /console (true or false); it asks for the API token and uses the API like any client."
        case .storageEndpoint: return "URL of an S3-compatible object store for s3:// outputs, addressed path-style; AWS S3 when absent. Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID_FILE and AWS_SECRET_ACCESS_KEY_FILE)."
        case .storageRegion: return "Region that object-store requests are signed for."
        case .storageSpoolBytes: return "Most bytes each worker keeps recorded but not yet uploaded; past it, s3:// recordings skip until uploads catch up."
        }
    }

    /// The default as a user reads it.
    public var defaultDescription: String {
        switch self {
        case .host: return ServeSettings.Defaults.host
        case .port: return String(ServeSettings.Defaults.port)
        case .mediaRoot: return "the working directory"
        case .outputDir: return "the media root"
        case .rtpPorts: return "\(ServeSettings.Defaults.rtpPorts.lowerBound)-\(ServeSettings.Defaults.rtpPorts.upperBound)"
        case .rtpAddress: return "the host, or 127.0.0.1 when the host is 0.0.0.0 or ::"
        case .rtpBindAddress: return "the RTP address when it is one of this host's, else every interface"
        case .apiToken, .apiTokenFile: return "none: the API is open"
        case .maxTasks: return String(ServeSettings.Defaults.maxTasks)
        case .maxInputs: return String(ServeSettings.Defaults.maxInputs)
        case .maxRegions: return String(ServeSettings.Defaults.maxRegions)
        case .maxOutputs: return String(ServeSettings.Defaults.maxOutputs)
        case .maxBodyBytes: return String(ServeSettings.Defaults.maxBodyBytes)
        case .maxDurationSeconds: return "none"
        case .maxWorkerRestarts: return String(ServeSettings.Defaults.maxWorkerRestarts)
        case .workerHangSeconds: return Self.plain(ServeSettings.Defaults.workerHangSeconds)
        case .outputGiveUpSeconds: return Self.plain(ServeSettings.Defaults.outputGiveUpSeconds)
        case .outputStallSeconds: return Self.plain(ServeSettings.Defaults.outputStallSeconds)
        case .minFreeBytes: return String(ServeSettings.Defaults.minFreeBytes)
        case .webhookSecret, .webhookSecretFile: return "none: webhooks are sent unsigned"
        case .denyHosts: return "none: every host is allowed"
        case .shutdownSeconds: return Self.plain(ServeSettings.Defaults.shutdownSeconds)
        case .logLevel: return ServeSettings.Defaults.logLevel
        case .logFormat: return ServeSettings.Defaults.logFormat.rawValue
        case .onShutdown: return ServeSettings.Defaults.onShutdown.rawValue
        case .stateDir: return "a .tessera folder under the output directory"
        case .store: return "none: the embedded store"
        case .nodeId: return "the host name"
        case .advertiseUrl: return "http://HOST:PORT"
        case .nodeTimeoutSeconds: return Self.plain(ServeSettings.Defaults.nodeTimeoutSeconds)
        case .console: return String(ServeSettings.Defaults.console)
        case .storageEndpoint: return "none: AWS S3 when AWS credentials are set, else no object storage"
        case .storageRegion: return StorageSettings.defaultRegion
        case .storageSpoolBytes: return String(StorageSettings.defaultSpoolBytes)
        }
    }

    /// `15` for 15.0, `0.5` for 0.5.
    private static func plain(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The `--help` text: what it does, where else it can come from, and its default.
    public var help: String {
        let sentence = summary.hasSuffix(".") ? String(summary.dropLast()) : summary
        return "\(sentence) (env \(environmentVariable), config key \(key)) [default: \(defaultDescription)]"
    }
}
