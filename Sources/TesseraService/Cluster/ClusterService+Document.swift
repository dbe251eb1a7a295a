import TesseraStore

extension ClusterService {
    /// `GET /v1/tasks/{taskId}/document`: the store's record, which any node reads. While the
    /// store is known down, a task that runs here is answered from its registry (reads are
    /// answered in an outage); any other is `StoreUnavailable`, as a failed read is.
    public func document(_ taskId: String) async throws -> AcceptedDocument {
        if outage.storeDown {
            if let local = await registry.acceptedDocument(taskId) { return local }
            throw TaskRoute.storeDownRefusal
        }
        let record: StoredTask?
        do { record = try await store.task(taskId) } catch {
            noteStoreFailure(error)
            throw ServiceError.storeUnavailable(error)
        }
        guard let record else { throw ServiceError.taskNotFound(taskId) }
        return AcceptedDocument(taskId: taskId, document: record.document, sequence: record.sequence)
    }
}
