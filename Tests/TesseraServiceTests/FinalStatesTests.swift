import Testing
import TesseraService
import TesseraWorkerProtocol

@Suite struct FinalStatesTests {
    private func status(_ state: TaskState) -> TaskStatus {
        TaskStatus(taskId: "t", state: state, reason: state == .failed ? "all outputs failed" : "stopped by request (DELETE)",
                   startedAt: "2026-11-28T00:00:00Z",
                   inputs: [InputStatus(id: "a", state: .live), InputStatus(id: "b", state: .waiting), InputStatus(id: "c", state: .failed)],
                   outputs: [OutputStatus(url: "rtmp://cdn/live/***", state: .live), OutputStatus(url: "rec.mp4", state: .paused),
                             OutputStatus(url: "rtmp://dead/***", state: .failed, lastError: "Connection refused"),
                             OutputStatus(url: "rtmp://slow/***", state: .reconnecting)])
    }

    @Test func aStoppedTaskEndsEveryInputAndFinishesEveryOutputThatDidNotFail() {
        var stopped = status(.stopped)
        FinalStates.settle(&stopped)
        #expect(stopped.inputs.map(\.state) == [.ended, .ended, .failed])
        #expect(stopped.outputs.map(\.state) == [.finished, .finished, .failed, .finished])
        #expect(stopped.outputs[2].lastError == "Connection refused")
    }

    @Test func aFailedTaskFailsItsOpenOutputsWithItsReason() {
        var failed = status(.failed)
        FinalStates.settle(&failed)
        #expect(failed.outputs.map(\.state) == [.failed, .failed, .failed, .failed])
        #expect(failed.outputs[0].lastError == "all outputs failed")
        #expect(failed.outputs[2].lastError == "Connection refused")
    }

    @Test func aRunningTaskIsLeftAsItIs() {
        var running = status(.running)
        FinalStates.settle(&running)
        #expect(running == status(.running))
    }
}
