import Foundation
import Testing
import TesseraStore

/// Output claims (issue 30): one writer per recording across the cluster, freed when its task
/// stops, and the last writer remembered.
@Suite(.postgresServer)
struct OutputClaimConformance {
    @Test(arguments: StoreKind.underTest)
    func aKeyHasOneRunningHolderAndIsFreedWhenItStops(kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            #expect(try await store.createTask(NewTask(taskId: "a", document: document("a"), node: "n1")) == .created)
            #expect(try await store.claimOutputs(["file:/out/rec.mp4", "s3://b/k.mp4"], taskId: "a") == nil)
            // Claiming again what it holds is fine.
            #expect(try await store.claimOutputs(["file:/out/rec.mp4"], taskId: "a") == nil)

            // Another node's store, another running task: refused at the first held key, nothing written.
            let other = try database.open()
            try await withRunning([other]) {
                #expect(try await other.createTask(NewTask(taskId: "b", document: document("b"), node: "n2")) == .created)
                #expect(try await other.claimOutputs(["file:/out/free.mp4", "s3://b/k.mp4"], taskId: "b")
                        == OutputClaimConflict(key: "s3://b/k.mp4", holder: "a"))
                #expect(try await store.lastHolders(of: ["file:/out/free.mp4", "s3://b/k.mp4"]) == ["s3://b/k.mp4": "a"])

                // A task not recorded as running holds nothing: its claim is only a question.
                #expect(try await other.claimOutputs(["file:/out/c.mp4"], taskId: "not-yet") == nil)
                #expect(try await other.claimOutputs(["file:/out/c.mp4"], taskId: "b") == nil)

                // Stopped: its keys are free for anyone, and it is remembered as their last writer until taken.
                try await store.setDesired(taskId: "a", .stopped)
                #expect(try await store.lastHolders(of: ["file:/out/rec.mp4"]) == ["file:/out/rec.mp4": "a"])
                #expect(try await other.claimOutputs(["file:/out/rec.mp4"], taskId: "b") == nil)
                #expect(try await store.lastHolders(of: ["file:/out/rec.mp4", "s3://b/k.mp4"])
                        == ["file:/out/rec.mp4": "b", "s3://b/k.mp4": "a"])
            }
        }
    }

    @Test(arguments: StoreKind.underTest)
    func ofTwoTasksClaimingOneKeyAtOnceExactlyOneWins(kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let other = try database.open()
            try await withRunning([other]) {
                #expect(try await store.createTask(NewTask(taskId: "a", document: document("a"), node: "n1")) == .created)
                #expect(try await other.createTask(NewTask(taskId: "b", document: document("b"), node: "n2")) == .created)
                for round in 0..<10 {
                    let key = "file:/out/race-\(round).mp4"
                    async let first = store.claimOutputs([key], taskId: "a")
                    async let second = other.claimOutputs([key], taskId: "b")
                    let outcomes = [try await first, try await second]
                    #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
                }
            }
        }
    }
}
