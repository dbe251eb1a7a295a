import TesseraStore

/// What a `POST /v1/tasks` does about a task id the store may already hold, as a pure function.
/// A `POST` whose answer was lost can be repeated: the same id with the same document is the same
/// task, answered as created; only a different document under a running id is a conflict.
public enum TaskCreation {
    public enum Decision: Sendable, Equatable {
        /// No running task has the id: record it (a stopped one of that id is replaced).
        case create
        /// The same task was created already (a repeated `POST`): answer with its status.
        case alreadyCreated
        /// Another task runs under the id: 409.
        case conflict
    }

    /// - Parameters:
    ///   - existing: the store's record of the id, if any.
    ///   - document: the prepared document's JSON text (sorted keys, as the store keeps it).
    public static func decide(existing: StoredTask?, document: String) -> Decision {
        guard let existing, existing.desired == .running else { return .create }
        return existing.document == document ? .alreadyCreated : .conflict
    }
}
