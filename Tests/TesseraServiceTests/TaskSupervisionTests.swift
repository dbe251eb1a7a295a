import TesseraService
import TesseraStore
import Testing

@Suite struct TaskSupervisionTests {
    @Test func aCrashRestartsUpToTheBudgetThenFails() {
        var supervision = TaskSupervision(maxRestarts: 2)
        #expect(supervision.workerExited(status: 9, signalled: true) == .restart(note: "worker process was killed by signal 9; restarted (1 of 2)"))
        #expect(supervision.workerExited(status: 1, signalled: false) == .restart(note: "worker process exited with status 1; restarted (2 of 2)"))
        #expect(supervision.workerExited(status: 1, signalled: false) == .finish(state: .failed, reason: "worker process exited with status 1"))
        #expect(supervision.desiredAfterFinal == .stopped)
    }

    @Test(arguments: [
        (TaskSupervision.StopCause.deleted, DesiredState?.some(.stopped)),
        (.shutdown, nil), (.handover, nil), (.fenced, nil),
    ])
    func whatTheStoreKeepsAfterAStop(cause: TaskSupervision.StopCause, desired: DesiredState?) {
        var supervision = TaskSupervision(maxRestarts: 2)
        let told = supervision.stop(cause)
        #expect(told)
        supervision.workerReportedExit(state: .stopped, reason: nil)
        #expect(supervision.workerExited(status: 0, signalled: false) == .finish(state: .stopped, reason: nil))
        #expect(supervision.desiredAfterFinal == desired)
    }

    @Test func aStoppingWorkerThatDiesIsNotRestarted() {
        var supervision = TaskSupervision(maxRestarts: 2)
        _ = supervision.stop(.deleted)
        #expect(supervision.workerExited(status: 9, signalled: true) == .finish(state: .stopped, reason: nil))
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
