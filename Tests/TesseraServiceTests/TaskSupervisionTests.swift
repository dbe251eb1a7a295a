import TesseraService
import TesseraStore
import Testing

@Suite struct TaskSupervisionTests {
    @Test func aCrashRestartsUpToTheBudgetThenFails() {
        var supervision = TaskSupervision(maxRestarts: 2)
        #expect(supervision.workerExited(status: 9, signalled: true) == .restart(note: "worker process was killed by signal 9; restarted (1 of 2)"))
        #expect(supervision.workerExited(status: 1, signalled: false) == .restart(note: "worker process exited with status 1; restarted (2 of 2)"))
        #expect(supervision.workerExited(status: 1, signalled: false) == .finish(state: .failed, reason: "worker process exited with status 1, after 2 restarts (--max-worker-restarts 2)"))
        #expect(supervision.desiredAfterFinal == .stopped)
    }

    @Test(arguments: [
        (TaskSupervision.StopCause.deleted, DesiredState?.some(.stopped), "stopped by request (DELETE)"),
        (.shutdown, nil, "server shut down; the task resumes when a server starts on this task store"),
        (.handover, nil, "drained: the task moved to another node"),
        (.fenced, nil, "another node runs the task now (this node lost its lease)"),
    ])
    func whatTheStoreKeepsAfterAStopAndWhyItEnded(cause: TaskSupervision.StopCause, desired: DesiredState?, reason: String) {
        var supervision = TaskSupervision(maxRestarts: 2)
        let told = supervision.stop(cause)
        #expect(told)
        supervision.workerReportedExit(state: .stopped, reason: nil)
        #expect(supervision.workerExited(status: 0, signalled: false) == .finish(state: .stopped, reason: reason))
        #expect(supervision.desiredAfterFinal == desired)
    }

    /// `--on-shutdown stop`: the task ends for good and says why, whether its worker reported
    /// its exit or had to be killed; a reason of the worker's own wins.
    @Test func aShutdownForGoodStaysStoppedAndSaysServerShutDown() {
        var reported = TaskSupervision(maxRestarts: 2)
        let told = reported.stop(.shutdownForGood)
        #expect(told)
        reported.workerReportedExit(state: .stopped, reason: nil)
        #expect(reported.workerExited(status: 0, signalled: false) == .finish(state: .stopped, reason: "server shut down"))
        #expect(reported.desiredAfterFinal == .stopped)

        var killed = TaskSupervision(maxRestarts: 2)
        _ = killed.stop(.shutdownForGood)
        #expect(killed.workerExited(status: 9, signalled: true) == .finish(state: .stopped, reason: "server shut down"))

        var failed = TaskSupervision(maxRestarts: 2)
        _ = failed.stop(.shutdownForGood)
        failed.workerReportedExit(state: .failed, reason: "cannot write: disk full")
        #expect(failed.workerExited(status: 0, signalled: false) == .finish(state: .failed, reason: "cannot write: disk full"))
    }

    @Test func aStoppingWorkerThatDiesIsNotRestarted() {
        var supervision = TaskSupervision(maxRestarts: 2)
        _ = supervision.stop(.deleted)
        #expect(supervision.workerExited(status: 9, signalled: true) == .finish(state: .stopped, reason: "stopped by request (DELETE)"))
    }

    @Test func aTaskThatEndedByItselfStaysStopped() {
        var supervision = TaskSupervision(maxRestarts: 2)
        supervision.workerReportedExit(state: .stopped, reason: "idle for 30 s")
        #expect(supervision.workerExited(status: 0, signalled: false) == .finish(state: .stopped, reason: "idle for 30 s"))
        #expect(supervision.desiredAfterFinal == .stopped)
        let toldAgain = supervision.stop(.deleted)
        #expect(!toldAgain)
    }
}
