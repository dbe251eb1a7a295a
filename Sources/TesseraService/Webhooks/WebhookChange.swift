import TesseraComposition
import TesseraTask
import TesseraObjectStorage
import TesseraWorkerProtocol

/// One state change of a task, one of its inputs or one of its outputs: what a webhook event
/// reports. `WebhookChange.changes(from:to:)` finds them by comparing two statuses.
public enum WebhookChange: Sendable, Equatable {
    case task(TaskChange)
    case input(InputChange)
    case output(OutputChange)
    /// An input's allocated RTP ports and SDP, when the task gets them (it starts, or moves to
    /// another node, which allocates its own): an SFU controller re-points its forwarder.
    case inputRTP(InputChange)
    /// An input's `drawSize` in the status changed (a layout update, its first picture, a new
    /// picture size): an SFU controller switches to the simulcast layer that fills it.
    case inputDrawSize(InputChange)
    /// A file of an `s3://` output is complete in the store (`upload` says which).
    case outputUploaded(OutputChange)

    /// The `event` field and `X-Tessera-Event` header: `task.state`, `input.state`, `input.added`,
    /// `input.removed`, `input.rtp`, `input.drawSize`, `output.state`, `output.added`, `output.removed`,
    /// `output.uploaded`.
    public var eventName: String {
        switch self {
        case .task: return "task.state"
        case .inputRTP: return "input.rtp"
        case .inputDrawSize: return "input.drawSize"
        case .outputUploaded: return "output.uploaded"
        case .input(let change): return "input." + Self.verb(state: change.state, previous: change.previousState)
        case .output(let change): return "output." + Self.verb(state: change.state, previous: change.previousState)
        }
    }

    private static func verb<State>(state: State?, previous: State?) -> String {
        if previous == nil { return "added" }
        if state == nil { return "removed" }
        return "state"
    }
}

/// `{"state", "previousState", "reason"}`: `previousState` is absent on the task's first event.
public struct TaskChange: Codable, Sendable, Equatable {
    public var state: TaskState
    public var previousState: TaskState?
    public var reason: String?

    public init(state: TaskState, previousState: TaskState?, reason: String? = nil) {
        self.state = state; self.previousState = previousState; self.reason = reason
    }
}

/// `{"id", "state", "previousState", "lastError"}`: no `previousState` when the input was just
/// added by an update, no `state` when it was just removed.
public struct InputChange: Codable, Sendable, Equatable {
    public var id: String
    public var state: InputStatus.State?
    public var previousState: InputStatus.State?
    public var lastError: String?
    /// `input.rtp`: where to send the input's RTP now.
    public var rtp: RTPStatus?
    /// `input.drawSize`: the input's new largest draw size; absent when no region shows it any more.
    public var drawSize: PixelSize?

    public init(id: String, state: InputStatus.State?, previousState: InputStatus.State?, lastError: String? = nil,
                rtp: RTPStatus? = nil, drawSize: PixelSize? = nil) {
        self.id = id; self.state = state; self.previousState = previousState; self.lastError = lastError; self.rtp = rtp
        self.drawSize = drawSize
    }
}

/// `{"url", "state", "previousState", "lastError"}` with the URL redacted as in the status: no
/// `previousState` when the output was just added by an update, no `state` when it was removed.
public struct OutputChange: Codable, Sendable, Equatable {
    public var url: String
    public var state: OutputStatus.State?
    public var previousState: OutputStatus.State?
    public var lastError: String?
    /// `output.uploaded`: the file now complete in the store.
    public var upload: ObjectUploadStatus?

    public init(url: String, state: OutputStatus.State?, previousState: OutputStatus.State?, lastError: String? = nil,
                upload: ObjectUploadStatus? = nil) {
        self.url = url; self.state = state; self.previousState = previousState; self.lastError = lastError
        self.upload = upload
    }
}
