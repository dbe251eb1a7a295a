import Foundation
import TesseraTask
import TesseraStore

/// What the routes beyond `TaskService` read: how this server checks a task document
/// (`/v1/validate`, `/v1/preview`) and the task store (`/v1/nodes`, a task's current document).
/// `tessera serve` passes the registry's own options, so a document valid here is accepted by
/// `POST /v1/tasks` (short of its run-time checks: free ports, room on a node).
public struct APISupport: Sendable {
    public var validationOptions: ValidationOptions
    /// Nil in tests that run without a store: `/v1/nodes` is then empty and documents are 404.
    public var store: (any TaskStore)?
    /// This node's id, marked in `/v1/nodes`.
    public var nodeId: String?

    public init(validationOptions: ValidationOptions = .serve(mediaRoot: FileManager.default.currentDirectoryPath),
                store: (any TaskStore)? = nil, nodeId: String? = nil) {
        self.validationOptions = validationOptions
        self.store = store
        self.nodeId = nodeId
    }
}
