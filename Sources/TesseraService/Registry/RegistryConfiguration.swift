import TesseraTask
import TesseraObjectStorage
import TesseraWorkerProtocol

/// How `tessera serve` runs tasks.
public struct RegistryConfiguration: Sendable {
    public var mediaRoot: String
    public var outputDirectory: String
    public var maxTasks: Int
    /// The `tessera` binary to start workers from (`tessera worker`).
    public var workerExecutable: String
    /// Starts workers; nil: `tessera worker` processes of `workerExecutable` (tests script their own).
    public var workerLauncher: (any WorkerLauncher)?
    public var logLevel: String
    /// How many times a task whose worker crashed is started again before it is `failed`.
    public var maxWorkerRestarts: Int
    /// A worker that reports nothing for this long is taken as hung and killed.
    public var workerHangSeconds: Double
    /// Seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double
    /// Seconds a network output may take no bytes before it is taken as lost (a stall).
    public var outputStallSeconds: Double = 10
    /// Free bytes the output directory keeps; below it this node takes no new recording task.
    public var minFreeBytes: Int64 = 0
    /// `--log-format`, for the workers' own lines.
    public var logFormat: LogFormat = .text
    /// UDP ports that `rtp.allocate` inputs are given (each medium takes an even RTP port and the
    /// odd RTCP port after it).
    public var rtpPortRange: ClosedRange<Int>
    /// The address written into the SDP of allocated inputs: where an SFU sends its RTP.
    public var rtpAnnounceAddress: String
    /// `--rtp-bind-address` as resolved (nil: none): with each SDP's address, where RTP sockets
    /// bind (`RTPBindAddress`).
    public var rtpBindAddress: String?
    /// Probes the UDP ports the RTP inputs are given (the media library's sockets, handed in).
    public var udpPorts: UDPPortChecker
    /// Per-task limits (a request over one is refused with a 4xx naming the field).
    public var maxInputs: Int = TaskLimits.maxInputs
    public var maxRegions: Int = TaskLimits.maxRegions
    public var maxOutputs: Int = TaskLimits.maxOutputs
    /// The longest a task may run, in seconds; nil for no limit.
    public var maxTaskDurationSeconds: Double?
    /// Hosts or CIDR blocks that input and output URLs may not name (empty: all allowed).
    public var deniedHosts: [String] = []
    /// How long a worker runs on without a lease renewal from its server before it ends its
    /// task (fencing); nil for no lease. Shorter than the node timeout, so a paused server's
    /// workers stop before another node may take their tasks.
    public var workerLeaseSeconds: Double?
    /// This node's name in the task store and in task statuses.
    public var nodeId: String = "local"
    /// Key of the HMAC-SHA256 signature on webhook bodies; nil sends them unsigned.
    public var webhookSecret: String?
    /// The object store `s3://` outputs upload to; nil: none (such outputs are refused).
    public var storage: StorageSettings?

    public init(mediaRoot: String, outputDirectory: String, maxTasks: Int, workerExecutable: String, logLevel: String,
                udpPorts: UDPPortChecker,
                maxWorkerRestarts: Int, workerHangSeconds: Double, outputGiveUpSeconds: Double,
                rtpPortRange: ClosedRange<Int>, rtpAnnounceAddress: String) {
        self.udpPorts = udpPorts
        self.rtpPortRange = rtpPortRange; self.rtpAnnounceAddress = rtpAnnounceAddress
        self.outputGiveUpSeconds = outputGiveUpSeconds
        self.mediaRoot = mediaRoot; self.outputDirectory = outputDirectory; self.maxTasks = maxTasks
        self.workerExecutable = workerExecutable; self.logLevel = logLevel
        self.maxWorkerRestarts = maxWorkerRestarts; self.workerHangSeconds = workerHangSeconds
    }
}
