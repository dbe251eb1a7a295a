import Foundation
import TesseraWorkerProtocol

/// The JSON body of one webhook POST:
///
/// ```json
/// {"event": "input.state", "taskId": "pk-room-42", "sequence": 12,
///  "timestamp": "2026-01-01T12:00:00.123Z",
///  "input": {"id": "guest", "state": "live", "previousState": "waiting"},
///  "status": {…the task status of GET /v1/tasks/{taskId}…}}
/// ```
///
/// Exactly one of `task`, `input`, `output` is present, as `event` names. `sequence` counts from 1
/// per task and grows by one per event, so a receiver can order events and see ones it never got
/// (dropped from a full queue, or given up on). `timestamp` is when the change was seen.
public struct WebhookPayload: Encodable, Sendable {
    public var event: String
    public var taskId: String
    public var sequence: Int64
    public var timestamp: String
    public var task: TaskChange?
    public var input: InputChange?
    public var output: OutputChange?
    public var status: TaskStatus

    public init(change: WebhookChange, sequence: Int64, timestamp: Date, status: TaskStatus) {
        event = change.eventName
        taskId = status.taskId
        self.sequence = sequence
        self.timestamp = Self.format(timestamp)
        self.status = status
        switch change {
        case .task(let change): task = change
        case .input(let change), .inputRTP(let change), .inputDrawSize(let change): input = change
        case .output(let change), .outputUploaded(let change): output = change
        }
    }

    /// The exact bytes that are posted and signed: sorted keys, so equal events encode alike.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// ISO 8601 in UTC with milliseconds (`2026-01-01T12:00:00.123Z`).
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
