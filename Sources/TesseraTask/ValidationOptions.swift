import Foundation

/// Where and how a task is validated: the roots that relative paths resolve against, the limits
/// the service enforces, and what differs between `tessera mix` (offline) and `tessera serve`.
public struct ValidationOptions: Sendable {
    /// Absolute directory that relative input and image paths resolve against.
    public var mediaRoot: String
    /// Absolute directory that relative output file paths resolve against.
    public var outputDirectory: String
    /// The pace of a document that names none: `.asap` for `mix`, `.realtime` for `serve`.
    public var defaultPace: Pace
    /// True for `tessera mix`: a task that can never end (every input loops, no
    /// `maxDurationSeconds`) is refused.
    public var offline: Bool
    /// True for the service (SPEC §5): file paths must stay under `mediaRoot` (inputs, images) or
    /// `outputDirectory` (outputs) after `..` and symbolic links are resolved. False for `mix`,
    /// where the caller owns the machine and any path is allowed.
    public var confinePaths: Bool
    /// Whether a file exists at an absolute path. Injected so tests need no real media.
    public var fileExists: @Sendable (String) -> Bool
    public var maxInputs: Int
    public var maxRegions: Int
    public var maxOutputs: Int
    /// The layout templates `layout.template` names.
    public var templates: TemplateLibrary
    /// Hosts network inputs and outputs may not name or resolve to (`--deny-hosts`).
    public var deniedHosts: HostDenyList
    /// The addresses a host name leads to, for the deny-list. Injected so tests need no DNS.
    public var resolveHost: @Sendable (String) -> [[UInt8]]?
    /// Why a local file may not be opened as media, or nil (a playlist that would reach other
    /// files, say). Injected so tests need no real media.
    public var inspectFile: @Sendable (String) -> String?
    /// Whether the node has an object store configured (`--storage-endpoint` or AWS credentials):
    /// without one an `s3://` output is refused, naming its `url`.
    public var objectStorage: Bool = false

    /// Where `s3://` outputs are written before they are uploaded: a folder per bucket under it.
    public var spoolDirectory: String { (outputDirectory.hasSuffix("/") ? outputDirectory : outputDirectory + "/") + ".tessera-spool/" }

    public init(
        mediaRoot: String = FileManager.default.currentDirectoryPath,
        outputDirectory: String? = nil,
        defaultPace: Pace = .realtime,
        offline: Bool = false,
        confinePaths: Bool = true,
        fileExists: @escaping @Sendable (String) -> Bool = { FileManager.default.fileExists(atPath: $0) },
        maxInputs: Int = TaskLimits.maxInputs,
        maxRegions: Int = TaskLimits.maxRegions,
        maxOutputs: Int = TaskLimits.maxOutputs,
        templates: TemplateLibrary = .bundled,
        deniedHosts: HostDenyList = HostDenyList(),
        resolveHost: @escaping @Sendable (String) -> [[UInt8]]? = HostResolver.addresses(of:),
        inspectFile: @escaping @Sendable (String) -> String? = LocalMediaSniffer.refusal(atPath:)
    ) {
        self.mediaRoot = TaskPathResolver.absolute(mediaRoot)
        self.outputDirectory = TaskPathResolver.absolute(outputDirectory ?? mediaRoot)
        self.defaultPace = defaultPace
        self.offline = offline
        self.confinePaths = confinePaths
        self.fileExists = fileExists
        self.maxInputs = maxInputs
        self.maxRegions = maxRegions
        self.maxOutputs = maxOutputs
        self.templates = templates
        self.deniedHosts = deniedHosts
        self.resolveHost = resolveHost
        self.inspectFile = inspectFile
    }

    /// `tessera mix`: paths relative to `directory` (default the working directory), pace `asap`,
    /// offline, no confinement.
    public static func mix(directory: String = FileManager.default.currentDirectoryPath) -> ValidationOptions {
        ValidationOptions(mediaRoot: directory, outputDirectory: directory, defaultPace: .asap,
                          offline: true, confinePaths: false)
    }

    /// `tessera serve`: paths confined to `mediaRoot` (outputs to `outputDirectory`, default the
    /// media root), pace `realtime`.
    public static func serve(mediaRoot: String, outputDirectory: String? = nil) -> ValidationOptions {
        ValidationOptions(mediaRoot: mediaRoot, outputDirectory: outputDirectory, defaultPace: .realtime,
                          offline: false, confinePaths: true)
    }
}
