import Foundation
import TesseraStore

/// The node's control loop: heartbeat and lease, resuming its tasks after a restart, claiming the
/// tasks of lost nodes, fencing tasks it no longer holds, and writing each task's status to the
/// store (`Reconciler`, `StatusWritePolicy`). Beside it, a liveness loop probes the other nodes
/// while the store fails and renews or stops the workers as `OutageGuard` decides: a store outage
/// is not a stream outage.
extension ClusterService {
    /// Runs until cancelled or until `shutdown` finished: one `reconcile()` per interval, and
    /// beside it one `checkLiveness()` per interval (a store call that hangs for its timeout
    /// must not hold the workers' lease renewals).
    public func run() async {
        let interval = Duration.milliseconds(Int(cluster.reconcileIntervalSeconds * 1000))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled, await !self.stopped {
                    await self.reconcile()
                    try? await self.sleep(interval)
                }
            }
            group.addTask {
                while !Task.isCancelled, await !self.stopped {
                    await self.checkLiveness()
                    try? await self.sleep(interval)
                }
            }
        }
    }

    /// Probes the nodes `OutageGuard` names (every peer while the store fails, else nodes whose
    /// heartbeats went stale), then renews the workers' leases or stops them all.
    public func checkLiveness() async {
        if stopped { return }
        let targets = outage.probeTargets(at: now)
        let peers = self.peers
        let timeout = outage.probeTimeoutSeconds
        let answers = await withTaskGroup(of: (String, PeerProbe).self) { group in
            for (node, url) in targets {
                group.addTask { (node, await peers.probe(url, timeoutSeconds: timeout)) }
            }
            var answers: [(String, PeerProbe)] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        for (node, probe) in answers {
            switch probe {
            case .answered(let seesStore): outage.peerAnswered(node, seesStore: seesStore, at: now)
            case .silent: outage.peerSilent(node, at: now)
            }
        }
        for action in outage.tick(at: now) {
            switch action {
            case .renewWorkerLeases(let seconds):
                await registry.renewLeases(seconds: seconds)
            case .stopAll(let reason):
                let local = await registry.localTaskIds
                logger.warning("stopping every task on this node", metadata: [
                    "node_id": .string(cluster.nodeId), "tasks": .stringConvertible(local.count), "reason": .string(reason)])
                for taskId in local {
                    await registry.fence(taskId)
                    written.forget(taskId: taskId)
                }
                ClusterMetrics.stoppedAll()
            }
        }
    }

    /// One round: heartbeat, then make this node's workers agree with the store.
    public func reconcile() async {
        if stopped { return }
        let local = await localGenerations()
        let running = local.count
        do {
            try await store.heartbeat(heartbeat(running: running))
            if outage.storeDown { logger.notice("the task store answers again", metadata: ["node_id": .string(cluster.nodeId)]) }
            outage.storeAnswered(at: now)
            await registry.renewLeases(seconds: outage.workerLeaseSeconds)
        } catch {
            // Cut off from the store: `checkLiveness` decides whether the tasks here go on.
            ClusterMetrics.storeError()
            noteStoreFailure(error)
            return
        }
        await writeStatuses()
        if now - lastForget > 60 {
            lastForget = now
            _ = try? await store.forgetStoppedTasks(before: Date().addingTimeInterval(-Self.keepStoppedSeconds))
        }
        do {
            async let mine = store.tasks(onNode: cluster.nodeId)
            async let orphans = store.orphanedTasks()
            async let nodes = store.nodes()
            let held = try await mine
            let lastRunBy = Dictionary(held.compactMap { record in StoredStatus.lastNode(of: record).map { (record.taskId, $0) } },
                                       uniquingKeysWith: { first, _ in first })
            let nodeList = try await nodes
            outage.sawNodes(nodeList, at: now)
            // A lost node's tasks move only once it has also been silent at its URL for long enough,
            // and not while heartbeats are judged afresh after an outage (`OutageGuard.mayClaim`).
            let claimable = try await orphans.filter { outage.mayClaim(from: $0.node, at: now) }
            let input = Reconciler.Input(
                nodeId: cluster.nodeId, leaving: draining, freeSlots: max(0, cluster.capacity - running),
                mine: held, orphans: claimable, nodes: nodeList, local: local, lastRunBy: lastRunBy,
                creating: await registry.creatingTaskIds)
            ClusterMetrics.nodes(input.nodes)
            for action in Reconciler.plan(input) { await perform(action) }
        } catch {
            ClusterMetrics.storeError()
            return
        }
    }

    private func perform(_ action: Reconciler.Action) async {
        switch action {
        case .resume(let record, let note):
            if await registry.resume(record, note: note) {
                ClusterMetrics.arrived(note.hasPrefix("moved") ? "handed_over" : "resumed")
            }
        case .stop(let taskId):
            _ = try? await registry.stop(taskId, cause: .deleted)
        case .fence(let taskId):
            await registry.fence(taskId)
            ClusterMetrics.fenced()
            written.forget(taskId: taskId)
        case .claim(let record, let note):
            guard let generation = try? await store.claim(taskId: record.taskId, node: cluster.nodeId,
                                                          expectedGeneration: record.generation) else { return }
            var claimed = record
            claimed.generation = generation
            claimed.node = cluster.nodeId
            if await registry.resume(claimed, note: note) { ClusterMetrics.arrived("moved") }
        }
    }

    /// Writes each local task's status when its states or files changed, else every 10 s (see
    /// `StatusWritePolicy`); a refused write means another node holds the task now. Final tasks
    /// are written and let go.
    private func writeStatuses() async {
        for entry in await registry.reports() {
            if entry.isFinal {
                await registry.persistFinal(entry.taskId)
                written.forget(taskId: entry.taskId)
                continue
            }
            guard written.shouldWrite(taskId: entry.taskId, key: entry.key, at: now) else { continue }
            guard let accepted = try? await store.saveStatus(taskId: entry.taskId, entry.report, node: cluster.nodeId,
                                                             generation: entry.generation) else { continue }
            ClusterMetrics.statusWritten()
            if accepted {
                written.wrote(taskId: entry.taskId, key: entry.key, at: now)
            } else {
                await registry.fence(entry.taskId)
                ClusterMetrics.fenced()
            }
        }
    }

    /// Drain: each task stops here properly, then goes to the node `Reconciler.handOver` picks.
    func handOver(deadlineSeconds seconds: Double) async {
        guard let nodes = try? await store.nodes() else { return }
        try? await store.heartbeat(heartbeat(running: await registry.activeCount))
        let moves = Reconciler.handOver(local: await localGenerations(), nodes: nodes, nodeId: cluster.nodeId)
        let registry = self.registry
        let store = self.store
        await withTaskGroup(of: Void.self) { group in
            for move in moves {
                group.addTask {
                    _ = try? await registry.stop(move.taskId, cause: .handover, timeoutSeconds: max(1, seconds - 2))
                    if (try? await store.claim(taskId: move.taskId, node: move.target, expectedGeneration: move.generation)) != nil {
                        ClusterMetrics.handedOver()
                    }
                }
            }
        }
    }

    private func localGenerations() async -> [String: Int64] {
        var result: [String: Int64] = [:]
        for id in await registry.localTaskIds {
            if let generation = await registry.generation(of: id) { result[id] = generation }
        }
        return result
    }
}
