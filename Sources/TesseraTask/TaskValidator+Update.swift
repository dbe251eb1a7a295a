import Foundation

/// The rules of an update (`PATCH /v1/tasks/{taskId}`), in one place: which fields an update may
/// carry, its `sequence`, the merge into the running document, one validation of the result (so
/// each host name is looked up once per request) and the switch between audio-only and
/// audio-video it may not make. What depends on the task as it runs right now (a stale
/// `sequence`, a task already ending) is `UpdateAdmission`'s, in the service.
extension TaskValidator {
    /// Fields an update may carry; everything else is fixed for a task's life.
    public static let updatableFields: Set<String> = ["layout", "audio", "inputs", "outputs", "sequence", "sei"]

    /// The task an update applies to, as it runs.
    public struct RunningTask: Sendable {
        /// The document as the worker runs it (allocated RTP inputs already turned into SDP inputs).
        public var document: [String: JSONValue]
        /// The document as accepted, for the task store (allocated inputs still ask for ports).
        public var storedDocument: [String: JSONValue]
        /// The plan in force (`document` as validated when the task started or was last updated).
        public var plan: ResolvedTask

        public init(document: [String: JSONValue], storedDocument: [String: JSONValue], plan: ResolvedTask) {
            self.document = document; self.storedDocument = storedDocument; self.plan = plan
        }
    }

    /// An update that passed every rule: both documents with the changes merged in, and the plan.
    public struct ValidatedUpdate: Sendable, Equatable {
        /// `RunningTask.document` with the changes (its `rtp.allocate` inputs are not given ports yet).
        public var document: [String: JSONValue]
        /// `RunningTask.storedDocument` with the changes.
        public var storedDocument: [String: JSONValue]
        /// `document` validated. An `rtp.allocate` input the update brings is `.rtpAllocate` here
        /// until its ports are chosen (`ResolvedTask.allocating`).
        public var plan: ResolvedTask
        /// The update's `sequence`, when it carries one.
        public var sequence: Int64?
    }

    /// Why an update is refused. A broken rule of updates is one issue; an invalid merged
    /// document is every issue of its validation, as a `POST` reports them.
    public enum UpdateRefusal: Error, Sendable, Equatable {
        case rule(ValidationIssue)
        case document(ValidationFailure)
    }

    /// Checks an update's body against the task as it runs and validates the merged document once.
    public static func validateUpdate(current: RunningTask, changes body: Data,
                                      options: ValidationOptions) -> Result<ValidatedUpdate, UpdateRefusal> {
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch { return .failure(.rule(ValidationIssue(path: "", message: error.description))) }
        guard case .object(let changes) = value else {
            return .failure(.rule(ValidationIssue(path: "", message: "the update must be a JSON object")))
        }
        return validateUpdate(current: current, changes: changes, options: options)
    }

    /// `validateUpdate(current:changes:options:)` for a body already parsed.
    public static func validateUpdate(current: RunningTask, changes: [String: JSONValue],
                                      options: ValidationOptions) -> Result<ValidatedUpdate, UpdateRefusal> {
        if let refusal = refusedField(changes) { return .failure(.rule(refusal)) }
        let sequence: Int64?
        switch readSequence(changes["sequence"]) {
        case .success(let read): sequence = read
        case .failure(let refusal): return .failure(refusal)
        }
        var merged = current.document, stored = current.storedDocument
        for (key, value) in changes where key != "sequence" {
            if case .null = value { merged[key] = nil; stored[key] = nil } else { merged[key] = value; stored[key] = value }
        }
        let plan: ResolvedTask
        switch validate(value: .object(merged), options: options) {
        case .success(let resolved): plan = resolved
        case .failure(let failure): return .failure(.document(failure))
        }
        // The worker's encoders are set up at the start: a video encoder cannot come or go.
        if (current.plan.video == nil) != (plan.video == nil) {
            return .failure(.rule(ValidationIssue(path: "layout",
                                                  message: "an update cannot switch a task between audio-only and audio-video")))
        }
        return .success(ValidatedUpdate(document: merged, storedDocument: stored, plan: plan, sequence: sequence))
    }

    /// The first field (by name) an update may not carry, with why.
    static func refusedField(_ changes: [String: JSONValue]) -> ValidationIssue? {
        guard let key = changes.keys.sorted().first(where: { !updatableFields.contains($0) }) else { return nil }
        let what = ["encoder", "mode", "callbackUrl"].contains(key) ? "cannot be changed while a task runs"
            : key == "taskId" ? "cannot be changed" : "is not a field an update may change (layout, audio, inputs, outputs, sei, sequence)"
        return ValidationIssue(path: key, message: "\(key) \(what)")
    }

    /// `sequence`: an integer (exact in a JSON number), or absent.
    static func readSequence(_ value: JSONValue?) -> Result<Int64?, UpdateRefusal> {
        guard let value else { return .success(nil) }
        guard case .number(let number) = value, number == number.rounded(), abs(number) < 9e15 else {
            return .failure(.rule(ValidationIssue(path: "sequence", message: "sequence must be an integer")))
        }
        return .success(Int64(number))
    }
}
