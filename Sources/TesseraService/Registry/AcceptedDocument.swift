/// A task's document as last accepted (updates merged in, allocated inputs still asking for
/// ports), with the `sequence` of the update in force: what an editor changes and sends back as a
/// `PATCH` with the next sequence (`GET /v1/tasks/{taskId}/document`).
public struct AcceptedDocument: Sendable, Equatable {
    public var taskId: String
    /// The document as JSON text, as the task store keeps it.
    public var document: String
    public var sequence: Int64?

    public init(taskId: String, document: String, sequence: Int64?) {
        self.taskId = taskId; self.document = document; self.sequence = sequence
    }
}
