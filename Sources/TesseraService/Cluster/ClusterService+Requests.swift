import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// The API's verbs: each asks `TaskRoute` where the request goes and carries the route out.
extension ClusterService {
    public func create(_ body: Data) async throws -> TaskStatus {
        let route = TaskRoute.decide(.create, await facts(for: .create))
        if case .refuse(let error) = route { throw error }
        let prepared = try await registry.prepare(body)
        guard route == .place else { return try await registry.create(prepared) }
        return try await place(prepared)
    }

    public func list() async -> [TaskStatus] { await listing().tasks }

    /// Every task from the store, running ones as their node last wrote them. A list another
    /// node asked for is this node's own tasks; while the store is down, the tasks every
    /// reachable node runs, marked partial.
    public func listing() async -> TaskListing {
        switch TaskRoute.decide(.list, await facts(for: .list)) {
        case .local:
            return TaskListing(tasks: await localStatuses())
        case .store:
            guard let records = try? await store.allTasks() else { break }
            let alive = Set(await aliveNodes().keys)
            var statuses: [TaskStatus] = []
            for record in records {
                statuses.append(await registry.localStatus(record.taskId) ?? StoredStatus.of(record, aliveNodes: alive))
            }
            return TaskListing(tasks: statuses)
        default:
            break
        }
        noteStoreFailure()
        return await reachableListing()
    }

    public func status(_ taskId: String) async throws -> TaskStatus {
        let facts = await facts(for: .status, taskId)
        switch TaskRoute.decide(.status, taskId: taskId, facts) {
        case .local:
            return try await localStatus(taskId)
        case .reachable:
            return try await askReachable(taskId) { peers, node, timeout in
                await peers.status(of: taskId, on: node, timeoutSeconds: timeout)
            }
        case .ownerElseStore(let owner):
            if let status = await peers.status(of: taskId, on: owner.advertiseURL, timeoutSeconds: nil).value { return status }
            return try storedStatus(facts)
        case .refuse(let error):
            throw error
        default:
            return try storedStatus(facts)
        }
    }

    public func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        switch TaskRoute.decide(.update, taskId: taskId, await facts(for: .update, taskId)) {
        case .local: return try await registry.update(taskId, body)
        case .owner(let owner): return try await peers.update(taskId, body: body, on: owner.advertiseURL).get(fromNode: owner.nodeId)
        case .refuse(let error): throw error
        default: throw TaskRoute.storeDownRefusal
        }
    }

    public func stop(_ taskId: String) async throws -> TaskStatus {
        let facts = await facts(for: .stop, taskId)
        switch TaskRoute.decide(.stop, taskId: taskId, facts) {
        case .local:
            let status = try await registry.stop(taskId, cause: .deleted)
            written.forget(taskId: taskId)
            return status
        case .ownerElseStore(let owner):
            if let status = await peers.stop(taskId, on: owner.advertiseURL).value { return status }
        case .store:
            break
        case .refuse(let error):
            throw error
        default:
            throw TaskRoute.storeDownRefusal
        }
        do { try await store.setDesired(taskId: taskId, .stopped) } catch { throw ServiceError.storeUnavailable(error) }
        var updated = facts
        if case .found(var record, let alive) = facts.stored {
            record.desired = .stopped
            updated.stored = .found(record, alive: alive)
        }
        return try storedStatus(updated)
    }

    public func snapshot(_ taskId: String) async throws -> Data {
        switch TaskRoute.decide(.snapshot, taskId: taskId, await facts(for: .snapshot, taskId)) {
        case .local:
            return try await registry.snapshot(taskId)
        case .reachable:
            // The owner waits up to 5 s for its next frame (`ManagedTask.snapshot`).
            return try await askReachable(taskId, timeoutSeconds: 6) { peers, node, timeout in
                await peers.snapshot(of: taskId, on: node, timeoutSeconds: timeout)
            }
        case .owner(let owner):
            return try await peers.snapshot(of: taskId, on: owner.advertiseURL, timeoutSeconds: nil).get(fromNode: owner.nodeId)
        case .refuse(let error):
            throw error
        default:
            throw ServiceError.invalidState("task \"\(taskId)\" is not running")
        }
    }

    /// Runs on the node that runs the task, like `PATCH`; refused on a stopped one.
    /// Store down: the message changes nothing the store holds, so it goes to whichever
    /// reachable node runs the task (the others refuse it without acting).
    public func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        switch TaskRoute.decide(.injectSEI, taskId: taskId, await facts(for: .injectSEI, taskId)) {
        case .local:
            return try await registry.injectSEI(taskId, body)
        case .reachable:
            return try await askReachable(taskId) { peers, node, timeout in
                await peers.injectSEI(into: taskId, body: body, on: node, timeoutSeconds: timeout)
            }
        case .owner(let owner):
            return try await peers.injectSEI(into: taskId, body: body, on: owner.advertiseURL, timeoutSeconds: nil)
                .get(fromNode: owner.nodeId)
        case .refuse(let error):
            throw error
        default:
            throw ServiceError.invalidState("task \"\(taskId)\" is not running")
        }
    }

    // MARK: Carrying routes out

    private func localStatus(_ taskId: String) async throws -> TaskStatus {
        guard let status = await registry.localStatus(taskId) else { throw ServiceError.taskNotFound(taskId) }
        return status
    }

    private func storedStatus(_ facts: TaskRoute.Facts) throws -> TaskStatus {
        guard case .found(let record, let alive) = facts.stored else { throw TaskRoute.storeDownRefusal }
        return StoredStatus.of(record, aliveNodes: Set(alive.keys))
    }

    /// A new task: the store's record of its id first (a repeated `POST` is the same task), then
    /// the nodes in placement order until one takes it.
    private func place(_ prepared: TaskRegistry.PreparedTask) async throws -> TaskStatus {
        let document = try TaskRegistry.jsonText(prepared.document)
        switch TaskCreation.decide(existing: try? await store.task(prepared.taskId), document: document) {
        case .create: break
        case .alreadyCreated: return try await status(prepared.taskId)
        case .conflict: throw ServiceError.taskExists(prepared.taskId)
        }
        let running = await registry.activeCount
        let this = NodeInfo(nodeId: cluster.nodeId, advertiseURL: cluster.advertiseURL, capacity: cluster.capacity,
                            running: running, draining: draining, leaseSeconds: cluster.nodeTimeoutSeconds,
                            heartbeatAt: Date(), alive: true)
        var round = PlacementRound(nodes: PlacementRound.view(of: (try? await store.nodes()) ?? [], with: this),
                                   pending: recentPending())
        while let target = round.next() {
            let here = target.nodeId == cluster.nodeId
            let outcome = here ? await createHere(prepared)
                : await peers.create(document: Data(document.utf8), on: target.advertiseURL)
            switch round.answer(outcome) {
            case .placed(let status):
                if !here { recentPlacements[target.nodeId, default: []].append(now) }
                return status
            case .tryNext: continue
            case .fail(let error): throw error
            }
        }
        throw round.refusal
    }

    /// This node's registry's answer as a peer's: full when over `--max-tasks` or low on disk.
    private func createHere(_ prepared: TaskRegistry.PreparedTask) async -> PeerOutcome<TaskStatus> {
        do {
            return .accepted(try await registry.create(prepared))
        } catch let error as ServiceError where error.kind == .tooManyTasks || error.kind == .insufficientStorage {
            return .full(error)
        } catch {
            return .refused(error)
        }
    }

    /// Placements made here that the nodes' heartbeats may not count yet.
    private func recentPending() -> [String: Int] {
        let cutoff = now - Self.placementMemorySeconds
        recentPlacements = recentPlacements.mapValues { $0.filter { $0 > cutoff } }.filter { !$0.value.isEmpty }
        return recentPlacements.mapValues(\.count)
    }
}
