import Foundation

/// Turns a task document into the `ResolvedTask` the pipeline trusts (SPEC §1): fills every
/// default, resolves every path, snaps every rectangle, and collects every problem instead of
/// stopping at the first, so a caller can fix a document in one round.
public enum TaskValidator {
    /// Validates a document read elsewhere (e.g. decoded with `Codable`, or built in code).
    public static func validate(_ document: TaskDocument, options: ValidationOptions) -> Result<ResolvedTask, ValidationFailure> {
        var context = ValidationContext(options: options)
        let task = context.resolve(document)
        guard context.issues.isEmpty, let task else { return .failure(ValidationFailure(issues: context.issues.items)) }
        return .success(task)
    }

    /// Reads and validates JSON in one run: the reader's issues (types, required, unknown fields)
    /// and the validator's (values, references, paths) come back together. A validator issue at or
    /// inside a field the reader already faulted is left out, since it would only restate it.
    public static func validate(json: Data, options: ValidationOptions) -> Result<ResolvedTask, ValidationFailure> {
        validate(read: TaskDocumentReader.readBestEffort(json), options: options)
    }

    /// `validate(json:options:)` for a document already parsed (an update merged into the running one).
    public static func validate(value: JSONValue, options: ValidationOptions) -> Result<ResolvedTask, ValidationFailure> {
        validate(read: TaskDocumentReader.readBestEffort(value), options: options)
    }

    private static func validate(read: (document: TaskDocument?, issues: [ValidationIssue]),
                                 options: ValidationOptions) -> Result<ResolvedTask, ValidationFailure> {
        guard let document = read.document else { return .failure(ValidationFailure(issues: read.issues)) }
        var context = ValidationContext(options: options)
        let task = context.resolve(document)
        let further = context.issues.items.filter { issue in
            !read.issues.contains { FieldPath.isWithin(issue.path, $0.path) && !$0.path.isEmpty }
        }
        let issues = read.issues + further
        guard issues.isEmpty, let task else { return .failure(ValidationFailure(issues: issues)) }
        return .success(task)
    }

    /// A fresh URL-safe task id: `task-` and 16 random hex digits.
    public static func generateTaskId() -> String {
        var generator = SystemRandomNumberGenerator()
        return "task-" + String(format: "%016llx", generator.next() as UInt64)
    }

    /// Whether `id` is a valid task id: 1–128 of `A–Z a–z 0–9 . _ -`, so it can sit in a URL path
    /// (`/v1/tasks/{taskId}`) and a file name unescaped. `.` and `..` alone are refused for the
    /// same reason.
    public static func isValidTaskId(_ id: String) -> Bool {
        guard (1...128).contains(id.utf8.count), id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}

/// The state of one validation run: the options and the issues found so far.
struct ValidationContext {
    let options: ValidationOptions
    var issues = IssueList()
    /// What each host name resolved to in this run: a name several fields use (an output and the
    /// callback on one host, say) is looked up once per validation, so once per request.
    var resolvedHosts: [String: [[UInt8]]?] = [:]

    init(options: ValidationOptions) { self.options = options }

    /// Everything resolved; nil parts (where an issue was noted) make the whole result nil.
    mutating func resolve(_ document: TaskDocument) -> ResolvedTask? {
        let taskId = resolveTaskId(document.taskId)
        let mode = resolveEnum(document.mode, at: "mode", default: TaskMode.mix)
        // An rtp output is sent as it is made: without a pace of its own such a task runs on the
        // wall clock even under `tessera mix`.
        let sendsRTP = document.outputs.contains { TaskPathResolver.scheme(of: $0.url) == "rtp" }
        let pace = resolveEnum(document.pace, at: "pace", default: sendsRTP ? .realtime : options.defaultPace)
        let maxDuration = resolveDuration(document.maxDurationSeconds, at: "maxDurationSeconds")
        let idleTimeout = resolveDuration(document.idleTimeoutSeconds, at: "idleTimeoutSeconds") ?? 30
        let callbackUrl = resolveCallback(document.callbackUrl)

        let inputs = resolveInputs(document.inputs)
        let inputIds = document.inputs.map(\.id)
        let video = document.encoder?.video.flatMap { resolveVideo($0, at: "encoder.video") }
        let audio = resolveAudioSettings(document.encoder?.audio ?? AudioEncoderSpec(), at: "encoder.audio")
        let layout = resolveLayoutSection(document, mode: mode, inputIds: inputIds)
        let audioMix = resolveAudioMix(document.audio, inputIds: inputIds)
        let outputContext = OutputContext(taskId: taskId, hasVideo: document.encoder?.video != nil, mode: mode, pace: pace,
                                          audioSampleRate: audio?.sampleRate, video: video)
        let outputs = resolveOutputs(document.outputs, inputs: inputs, hasVideo: document.encoder?.video != nil,
                                     mode: mode, context: outputContext)

        let sei = resolveSEI(document.sei, hasVideo: document.encoder?.video != nil, mode: mode)
        let schedule = resolveSchedule(document, mode: mode, inputIds: inputIds)
        if mode == .relay { checkRelay(document) }
        if options.offline, !document.inputs.isEmpty, document.inputs.allSatisfy({ $0.loop == true }),
           document.maxDurationSeconds == nil {
            issues.add("maxDurationSeconds", "required offline when every input loops (the mix would never end)")
        }

        let resolvedInputs = inputs.compactMap { $0 }
        guard let mode, let pace, let audio, let audioMix, let outputs, resolvedInputs.count == inputs.count
        else { return nil }
        var task = ResolvedTask(taskId: taskId, mode: mode, pace: pace, maxDurationSeconds: maxDuration,
                                idleTimeoutSeconds: idleTimeout, callbackUrl: callbackUrl, inputs: resolvedInputs,
                                video: mode == .relay ? nil : video, audio: audio, layout: layout,
                                audioMix: audioMix, outputs: outputs)
        task.sei = sei
        task.schedule = schedule.map { Self.schedule($0, base: task) }
        task.sections = TaskSections(document)
        return task
    }

    // MARK: - Top-level fields

    private mutating func resolveTaskId(_ id: String?) -> String {
        guard let id else { return TaskValidator.generateTaskId() }
        if !TaskValidator.isValidTaskId(id) {
            issues.add("taskId", "must be 1–128 characters of A–Z, a–z, 0–9, '.', '_' or '-'")
        }
        return id
    }

    /// A string field naming one case of `E`, or `fallback` when absent.
    mutating func resolveEnum<E: RawRepresentable & CaseIterable>(_ text: String?, at path: String, default fallback: E) -> E?
    where E.RawValue == String {
        guard let text else { return fallback }
        if let value = E(rawValue: text) { return value }
        issues.add(path, "expected \(E.allCases.map(\.rawValue).joinedAsChoice()), got \"\(text)\"")
        return nil
    }

    private mutating func resolveDuration(_ seconds: Double?, at path: String) -> Double? {
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds > 0 else {
            issues.add(path, "must be greater than 0")
            return nil
        }
        return seconds
    }

    /// The longest `callbackUrl` accepted: what browsers and proxies reliably carry, and a bound on
    /// what every webhook request repeats.
    static let maxCallbackURLLength = 2048

    /// `callbackUrl`: an absolute http or https URL with a host. It is fixed for the task's life
    /// (an update cannot change it) and only `tessera serve` posts to it.
    private mutating func resolveCallback(_ url: String?) -> String? {
        guard let url else { return nil }
        guard url.utf8.count <= Self.maxCallbackURLLength else {
            issues.add("callbackUrl", "must be at most \(Self.maxCallbackURLLength) characters (got \(url.utf8.count))")
            return nil
        }
        let scheme = TaskPathResolver.scheme(of: url)
        guard scheme == "http" || scheme == "https" else {
            issues.add("callbackUrl", "must be an http: or https: URL")
            return nil
        }
        // URL(string:) is what delivery uses: text it cannot parse would fail only later, at the first event.
        guard let host = URLComponents(string: url)?.host, !host.isEmpty, URL(string: url) != nil else {
            issues.add("callbackUrl", "must be an absolute http: or https: URL with a host (http://host[:port]/path)")
            return nil
        }
        // The service posts to it: a caller must not aim it at a host the operator has denied.
        guard allowedHost(of: url, at: "callbackUrl") != nil else { return nil }
        return url
    }

    private mutating func checkRelay(_ document: TaskDocument) {
        if document.inputs.count != 1 {
            issues.add("inputs", "relay takes exactly one input (got \(document.inputs.count))")
        }
        if document.layout != nil {
            issues.add("layout", "relay has no layout: it passes its input's video through; use mode mix to compose")
        }
        if document.encoder?.video != nil {
            issues.add("encoder.video", "relay does not re-encode video; remove encoder.video or use mode mix")
        }
    }
}

extension Array where Element == String {
    /// `a, b or c`, for messages listing the valid choices.
    func joinedAsChoice() -> String {
        guard count > 1 else { return first ?? "" }
        return dropLast().joined(separator: ", ") + " or " + last!
    }
}
