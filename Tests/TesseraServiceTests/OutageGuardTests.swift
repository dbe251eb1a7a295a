import Foundation
import TesseraService
import TesseraStore
import TesseraWorkerProtocol
import Testing

@Suite struct OutageGuardTests {
    private func node(_ id: String, alive: Bool = true, age: Double = 0) -> NodeInfo {
        NodeInfo(nodeId: id, advertiseURL: "http://\(id)", capacity: 4, running: 1, draining: false, leaseSeconds: 10,
                 heartbeatAt: Date(timeIntervalSince1970: 1000 - age), alive: alive)
    }

    /// Node "a" of a, b, c: healthy at t = 0, having seen all three alive.
    private func healthy() -> OutageGuard {
        var guardian = OutageGuard(nodeId: "a", timeoutSeconds: 10, intervalSeconds: 1)
        guardian.storeAnswered(at: 0)
        guardian.sawNodes([node("a"), node("b"), node("c")], at: 0)
        return guardian
    }

    private let renew = OutageGuard.Action.renewWorkerLeases(seconds: 5)

    @Test func withTheStoreAnsweringWorkersAreRenewedAndNobodyIsProbed() {
        var guardian = healthy()
        #expect(guardian.tick(at: 1) == [renew])
        #expect(guardian.probeTargets(at: 1).isEmpty)
        #expect(guardian.readiness(at: 1) == .ready)
    }

    @Test func aStoreOutageForEverybodyKeepsTheTasksRunningAndTheNodeReady() {
        var guardian = healthy()
        guardian.storeFailed(at: 2)
        #expect(guardian.probeTargets(at: 2) == ["b": "http://b", "c": "http://c"])
        for t in stride(from: 2.0, through: 60, by: 1) {
            guardian.peerAnswered("b", seesStore: false, at: t)
            guardian.peerAnswered("c", seesStore: false, at: t)
            #expect(guardian.tick(at: t) == [renew])
        }
        #expect(guardian.readiness(at: 60) == .storeUnreachable)
        // Nothing is claimed for a node timeout after the store came back: every heartbeat looks old.
        guardian.storeAnswered(at: 61)
        guardian.sawNodes([node("a"), node("b", alive: false, age: 59), node("c", alive: false, age: 59)], at: 61)
        #expect(!guardian.mayClaim(from: "b", at: 61))
        #expect(!guardian.mayClaim(from: "b", at: 70.9))
        #expect(guardian.peers.keys.sorted() == ["b", "c"])
    }

    @Test func aNodeCutOffFromTheStoreAloneKeepsItsTasksButIsNotReady() {
        var guardian = healthy()
        guardian.storeFailed(at: 2)
        for t in stride(from: 2.0, through: 30, by: 1) {
            guardian.peerAnswered("b", seesStore: true, at: t)
            guardian.peerAnswered("c", seesStore: true, at: t)
            #expect(guardian.tick(at: t) == [renew])
        }
        guard case .notReady = guardian.readiness(at: 30) else { Issue.record("should not be ready"); return }
    }

    @Test func cutOffFromTheStoreAndTheMajorityStopsEverythingOnceAfterHalfTheTimeout() {
        var guardian = healthy()
        guardian.storeFailed(at: 1)
        guardian.peerSilent("b", at: 1)
        guardian.peerSilent("c", at: 1)
        // The workers still hold the lease of the last renewal (t = 0) until half the timeout.
        #expect(guardian.tick(at: 4) == [])
        let actions = guardian.tick(at: 5.5)
        #expect(actions.count == 1)
        guard case .stopAll(let reason)? = actions.first else { Issue.record("expected stopAll"); return }
        #expect(reason.contains("1 of 3"))
        #expect(guardian.tick(at: 6.5) == [])
        guard case .notReady = guardian.readiness(at: 6.5) else { Issue.record("should not be ready"); return }
    }

    @Test func oneOfThreePeersSuffices() {
        var guardian = healthy()
        guardian.storeFailed(at: 1)
        guardian.peerAnswered("b", seesStore: false, at: 8)
        guardian.peerSilent("c", at: 8)
        #expect(guardian.tick(at: 8) == [renew])
        // The answer goes stale after `freshSeconds` (3 s here).
        #expect(guardian.tick(at: 11.5) != [renew])
    }

    @Test func aLostNodeIsClaimedOnlyWhenSilentLongerThanItsWorkersCanOutliveIt() {
        var guardian = healthy()
        guardian.storeAnswered(at: 20)
        guardian.sawNodes([node("a"), node("b", alive: false, age: 11), node("c")], at: 20)
        #expect(guardian.probeTargets(at: 20) == ["b": "http://b"])
        #expect(!guardian.mayClaim(from: "b", at: 20))
        guardian.peerSilent("b", at: 20)
        // 5 s worker lease + 3 s fresh + 1 s interval.
        #expect(guardian.silenceBeforeClaimSeconds == 9)
        #expect(!guardian.mayClaim(from: "b", at: 28.9))
        #expect(guardian.mayClaim(from: "b", at: 29))
        // It answers after all: its tasks stay.
        guardian.peerAnswered("b", seesStore: false, at: 29.5)
        #expect(!guardian.mayClaim(from: "b", at: 40))
        // Tasks with no node, or whose node left the cluster, wait for nobody.
        #expect(guardian.mayClaim(from: nil, at: 20))
        #expect(guardian.mayClaim(from: "gone", at: 20))
    }

    @Test func aStaleHeartbeatIsProbedBeforeTheLeaseExpires() {
        var guardian = healthy()
        guardian.storeAnswered(at: 10)
        guardian.sawNodes([node("a"), node("b", age: 6), node("c", age: 1)], at: 10)
        #expect(guardian.probeTargets(at: 10) == ["b": "http://b"])
    }

    @Test func aSingleNodeRunsThroughAnOutage() {
        var guardian = OutageGuard(nodeId: "a", timeoutSeconds: 10, intervalSeconds: 1)
        guardian.storeAnswered(at: 0)
        guardian.sawNodes([node("a")], at: 0)
        guardian.storeFailed(at: 1)
        #expect(guardian.tick(at: 30) == [renew])
        #expect(guardian.readiness(at: 30) == .storeUnreachable)
    }

    @Test func notReadyBeforeTheStoreFirstAnswers() {
        let guardian = OutageGuard(nodeId: "a", timeoutSeconds: 10, intervalSeconds: 1)
        #expect(guardian.readiness(at: 0) == .notReady("the task store has not answered yet"))
    }
}

@Suite struct StatusWritePolicyTests {
    @Test func writtenOnChangeElseEveryTenSeconds() {
        var policy = StatusWritePolicy()
        #expect(policy.shouldWrite(taskId: "t", key: "running", at: 0))
        policy.wrote(taskId: "t", key: "running", at: 0)
        #expect(!policy.shouldWrite(taskId: "t", key: "running", at: 9.9))
        #expect(policy.shouldWrite(taskId: "t", key: "running|output live", at: 1))
        #expect(policy.shouldWrite(taskId: "t", key: "running", at: 10))
        policy.forget(taskId: "t")
        #expect(policy.shouldWrite(taskId: "t", key: "running", at: 1))
    }

    @Test func countersDoNotChangeTheKeyButStatesAndFilesDo() {
        var status = TaskStatus(taskId: "t", state: .running, startedAt: "2025-01-01T00:00:00Z", uptimeSeconds: 1, frames: 25, fps: 25,
                                inputs: [InputStatus(id: "a", state: .live)], outputs: [OutputStatus(url: "rtmp://x/live/***", state: .live)])
        let key = status.storeKey
        status.uptimeSeconds = 2; status.frames = 50; status.fps = 24.9; status.bitrateKbps = 3000
        status.inputs[0].frames = 50; status.outputs[0].bytes = 123_456
        #expect(status.storeKey == key)
        status.outputs[0].state = .reconnecting
        #expect(status.storeKey != key)
        status.outputs[0].state = .live
        status.outputs[0].files = ["/out/t.mp4"]
        #expect(status.storeKey != key)
    }
}

@Suite struct TaskCreationTests {
    private func record(_ document: String, desired: DesiredState = .running) -> StoredTask {
        StoredTask(taskId: "t", document: document, sequence: nil, desired: desired, node: "a", generation: 1, status: nil,
                   files: [:], webhookSequence: 1, createdAt: Date(), updatedAt: Date())
    }

    @Test func aRepeatedPostIsTheSameTaskAndADifferentDocumentAConflict() {
        #expect(TaskCreation.decide(existing: nil, document: #"{"a":1}"#) == .create)
        #expect(TaskCreation.decide(existing: record(#"{"a":1}"#, desired: .stopped), document: #"{"a":1}"#) == .create)
        #expect(TaskCreation.decide(existing: record(#"{"a":1}"#), document: #"{"a":1}"#) == .alreadyCreated)
        #expect(TaskCreation.decide(existing: record(#"{"a":1}"#), document: #"{"a":2}"#) == .conflict)
    }
}
