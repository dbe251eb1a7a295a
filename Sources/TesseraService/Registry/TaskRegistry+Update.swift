import Foundation
import TesseraComposition
import TesseraTask
import TesseraWorkerProtocol

/// Requests to a task running here: an update (`PATCH`), an SEI message, a snapshot.
extension TaskRegistry {
    /// Checks the update against the task as it runs (`TaskValidator.validateUpdate`: its fields,
    /// `sequence`, the merged document validated once, the audio-only switch), then asks what only
    /// this node can answer (buckets, whether the task still takes updates, recordings another
    /// task holds, RTP ports), writes the store, and hands the plan to the worker.
    public func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        let task = try task(taskId)
        guard let current = task.running else { throw ServiceError.invalidState("task has no document") }
        let options = validationOptions
        let checked = try await BlockingWork.run {
            switch TaskValidator.validateUpdate(current: current, changes: body, options: options) {
            case .success(let update): return update
            case .failure(.rule(let issue)): throw ServiceError(.invalidUpdate, message: issue.message, path: issue.path)
            case .failure(.document(let failure)): throw ServiceError.invalid(failure, kind: .invalidUpdate)
            }
        }
        let before = current.plan, after = checked.plan
        try await BucketCheck.check(after, storage: configuration.storage, kind: .invalidUpdate,
                                    skipping: Set(before.outputs.compactMap { $0.upload?.bucket }))
        // Refused before the store is written: a refused update changes nothing.
        switch task.admitsUpdate(sequence: checked.sequence) {
        case .accept: break
        case .refuseEnded(let state): throw ServiceError.invalidState("task \"\(taskId)\" is \(state.rawValue)")
        case .refuseStale(let got, let last): throw ServiceError.staleSequence(got: got, last: last)
        }
        var merged = checked.document
        var stored = checked.storedDocument
        let sequence = checked.sequence
        // HLS outputs keep their viewer keys (an update that restates an output without its key
        // too); the ones it adds get new keys, the same in both documents.
        HLSViewerKeys.assign(&stored, plan: after, previous: HLSViewerKeys.keys(in: task.document))
        HLSViewerKeys.assign(&merged, plan: after, previous: HLSViewerKeys.keys(in: .object(stored)))
        // A recording the update adds has one writer too (the task already holds its others):
        // asked now, held just before the update is stored.
        let held = Set(OutputClaimKeys.keys(of: before).map(\.key))
        let added = OutputClaimKeys.keys(of: after).filter { !held.contains($0.key) }
        let addedHolders = try await refuseOutputsInUse(added, plan: after)
        let foreign = Set(added.filter { addedHolders[$0.key] != taskId }.map { after.outputs[$0.index].url })
        let running = RTPAllocations.sdpTexts(in: task.document)
        let (inputs, allocations) = try rtp.resolve(inputs: merged["inputs"] ?? .null, taskId: taskId, knownSDPs: running)
        if merged["inputs"] != nil { merged["inputs"] = inputs }
        // The ports allocated go into the plan as the SDPs written for them: no second validation.
        let resolved = after.allocating(allocations.mapValues(\.sdp))
        try await claimOutputs(added, plan: after)
        // The store first: an update is answered 200 only once it is the task's for good (a node
        // that lost the task's lease refuses it).
        let accepted: Bool
        do {
            accepted = try await store.updateDocument(taskId: taskId, document: try Self.jsonText(.object(stored)),
                                                      sequence: sequence ?? task.sequence, node: configuration.nodeId,
                                                      generation: task.generation)
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        guard accepted else { throw ServiceError.invalidState("task \"\(taskId)\" has moved to another node; retry") }
        try task.update(document: .object(merged), storedDocument: .object(stored), plan: resolved, sequence: sequence,
                        rtp: allocations.mapValues(\.status), foreignRecordings: foreign)
        rtp.commit(taskId: taskId, allocations)
        await task.waitUntilRTPInputsReady(timeoutSeconds: Self.rtpReadyTimeoutSeconds)
        return task.status
    }

    /// `POST /v1/tasks/{taskId}/sei`: checked by `TaskValidator.validateSEIInjection` against the
    /// plan in force, then handed to the task's worker.
    public func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        let task = try task(taskId)
        let injection: SEIInjection
        switch TaskValidator.validateSEIInjection(body, plan: task.planInForce) {
        case .success(let read): injection = read
        case .failure(let failure):
            let first = failure.issues.first
            throw ServiceError(.invalidSEI, message: first?.message ?? "invalid SEI request",
                               path: first?.path ?? "",
                               issues: failure.issues.count > 1 ? failure.issues.map { .init(path: $0.path, message: $0.message) } : [])
        }
        try task.injectSEI(injection)
        return SEIAccepted(taskId: taskId, uuid: SEIUUID.hex(injection.message.uuid ?? []),
                           bytes: injection.message.payload.count - 16, repeat: injection.repeatCount)
    }

    public func snapshot(_ taskId: String) async throws -> Data {
        let task = try task(taskId)
        if task.isAudioOnly { throw ServiceError.invalidState("task \"\(taskId)\" is audio-only: it has no picture") }
        return try await task.snapshot()
    }
}
