import Foundation
import Testing
import TesseraService
import TesseraStore

/// Where each request goes, from what the node knows: no store, no peer, no clock.
@Suite struct TaskRouteTests {
    typealias F = ClusterFixtures

    /// Node a's facts about t1, which the store says node `owner` runs.
    func facts(runsHere: Bool = false, forwarded: Bool = false, storeDown: Bool = false, owner: String? = "b",
               ownerAlive: Bool = true, desired: DesiredState = .running) -> TaskRoute.Facts {
        var facts = TaskRoute.Facts(nodeId: "a", forwarded: forwarded, storeDown: storeDown, runsHere: runsHere)
        if facts.mustReadStore(for: .status) {
            let alive = ["a": F.node("a")].merging(ownerAlive ? owner.map { [$0: F.node($0)] } ?? [:] : [:]) { first, _ in first }
            facts.stored = .found(F.task(node: owner, desired: desired), alive: alive)
        }
        return facts
    }

    @Test func aNewTaskIsPlacedUnlessPassedOnAndRefusedWhileLeavingOrWithoutTheStore() {
        #expect(TaskRoute.decide(.create, facts()) == .place)
        #expect(TaskRoute.decide(.create, facts(forwarded: true)) == .local)
        #expect(TaskRoute.decide(.create, TaskRoute.Facts(nodeId: "a", forwarded: false, storeDown: false, leaving: true))
                == .refuse(.shuttingDown))
        #expect(TaskRoute.decide(.create, facts(storeDown: true)) == .refuse(TaskRoute.storeDownRefusal))
    }

    @Test func theListIsTheStoresOrWithoutItWhatTheReachableNodesRun() {
        #expect(TaskRoute.decide(.list, facts()) == .store)
        #expect(TaskRoute.decide(.list, facts(storeDown: true)) == .reachable)
        #expect(TaskRoute.decide(.list, facts(forwarded: true)) == .local)
        #expect(TaskRoute.decide(.list, facts(forwarded: true, storeDown: true)) == .local)
    }

    @Test func aTaskRunningHereIsAnsweredHereReadsEvenWithoutTheStore() {
        for verb: TaskRoute.Verb in [.status, .snapshot, .injectSEI] {
            #expect(TaskRoute.decide(verb, taskId: "t1", facts(runsHere: true, storeDown: true)) == .local)
        }
        for verb: TaskRoute.Verb in [.update, .stop] {
            #expect(TaskRoute.decide(verb, taskId: "t1", facts(runsHere: true)) == .local)
            #expect(TaskRoute.decide(verb, taskId: "t1", facts(runsHere: true, storeDown: true)) == .refuse(TaskRoute.storeDownRefusal))
        }
        #expect(!facts(runsHere: true).mustReadStore(for: .status))
        #expect(!facts(storeDown: true).mustReadStore(for: .status))
        #expect(!facts().mustReadStore(for: .list))
    }

    @Test func withoutTheStoreReadsAskTheReachableNodesAndAPassedOnOneIsNotFoundHere() {
        for verb: TaskRoute.Verb in [.status, .snapshot, .injectSEI] {
            #expect(TaskRoute.decide(verb, taskId: "t1", facts(storeDown: true)) == .reachable)
            #expect(TaskRoute.decide(verb, taskId: "t1", facts(forwarded: true, storeDown: true)) == .refuse(.taskNotFound("t1")))
        }
    }

    @Test func aTaskOfALiveNodeGoesToItAndAPassedOnRequestIsNeverPassedOnAgain() {
        let b = F.node("b")
        #expect(TaskRoute.decide(.status, taskId: "t1", facts()) == .ownerElseStore(b))
        #expect(TaskRoute.decide(.update, taskId: "t1", facts()) == .owner(b))
        #expect(TaskRoute.decide(.stop, taskId: "t1", facts()) == .ownerElseStore(b))
        #expect(TaskRoute.decide(.snapshot, taskId: "t1", facts()) == .owner(b))
        #expect(TaskRoute.decide(.injectSEI, taskId: "t1", facts()) == .owner(b))
        #expect(TaskRoute.decide(.status, taskId: "t1", facts(forwarded: true)) == .store)
        #expect(TaskRoute.decide(.update, taskId: "t1", facts(forwarded: true))
                == .refuse(.invalidState("task \"t1\" is moving to another node; retry in a few seconds")))
    }

    @Test func aTaskOfALostNodeIsAnsweredFromTheStore() {
        let lost = facts(ownerAlive: false)
        #expect(TaskRoute.decide(.status, taskId: "t1", lost) == .store)
        #expect(TaskRoute.decide(.stop, taskId: "t1", lost) == .store)
        #expect(TaskRoute.decide(.update, taskId: "t1", lost)
                == .refuse(.invalidState("task \"t1\" is moving to another node; retry in a few seconds")))
        #expect(TaskRoute.decide(.snapshot, taskId: "t1", lost) == .refuse(.invalidState("task \"t1\" is not running")))
        #expect(TaskRoute.decide(.status, taskId: "t1", facts(owner: nil)) == .store)
    }

    @Test func aStoppedTaskIsStoppedInTheStoreAndRefusesWhatNeedsItRunning() {
        let stopped = facts(desired: .stopped)
        #expect(TaskRoute.decide(.stop, taskId: "t1", stopped) == .store)
        #expect(TaskRoute.decide(.update, taskId: "t1", stopped) == .refuse(.invalidState("task \"t1\" is stopped")))
        #expect(TaskRoute.decide(.injectSEI, taskId: "t1", stopped) == .refuse(.invalidState("task \"t1\" is not running")))
        #expect(TaskRoute.decide(.status, taskId: "t1", stopped) == .ownerElseStore(F.node("b")))
    }

    @Test func aTaskTheStoreDoesNotHoldIsNotFoundAndAFailedReadIsTheStoresError() {
        var missing = TaskRoute.Facts(nodeId: "a", forwarded: false, storeDown: false)
        missing.stored = .missing
        let failed = ServiceError.storeUnavailable(TaskStoreError("timed out"))
        var unreadable = missing
        unreadable.stored = .failed(failed)
        for verb: TaskRoute.Verb in [.status, .update, .stop, .snapshot, .injectSEI] {
            #expect(TaskRoute.decide(verb, taskId: "t1", missing) == .refuse(.taskNotFound("t1")))
            #expect(TaskRoute.decide(verb, taskId: "t1", unreadable) == .refuse(failed))
        }
    }
}
