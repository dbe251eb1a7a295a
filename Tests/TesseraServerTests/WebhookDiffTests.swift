import TesseraService
import TesseraWorkerProtocol
import Testing

@Suite struct WebhookDiffTests {
    static func status(_ state: TaskState, inputs: [(String, InputStatus.State)] = [("guest", .waiting)],
                       outputs: [(String, OutputStatus.State)] = [("rtmp://cdn/live/***", .connecting)],
                       frames: Int64 = 0) -> TaskStatus {
        TaskStatus(taskId: "room", state: state, startedAt: "2026-01-01T00:00:00Z", frames: frames,
                   inputs: inputs.map { InputStatus(id: $0.0, state: $0.1, frames: frames) },
                   outputs: outputs.map { OutputStatus(url: $0.0, state: $0.1, bytes: frames * 100) })
    }

    @Test func theFirstStatusAnnouncesTheTaskOnly() {
        let changes = WebhookChange.changes(from: nil, to: Self.status(.starting))
        #expect(changes == [.task(TaskChange(state: .starting, previousState: nil))])
        #expect(changes.map(\.eventName) == ["task.state"])
    }

    @Test func countersAloneMakeNoEvent() {
        #expect(WebhookChange.changes(from: Self.status(.running, frames: 10), to: Self.status(.running, frames: 500)).isEmpty)
    }

    @Test func aTaskStartingUpReportsItselfBeforeItsInputsAndOutputs() {
        let changes = WebhookChange.changes(
            from: Self.status(.starting),
            to: Self.status(.running, inputs: [("guest", .live)], outputs: [("rtmp://cdn/live/***", .live)]))
        #expect(changes == [
            .task(TaskChange(state: .running, previousState: .starting)),
            .input(InputChange(id: "guest", state: .live, previousState: .waiting)),
            .output(OutputChange(url: "rtmp://cdn/live/***", state: .live, previousState: .connecting)),
        ])
        #expect(changes.map(\.eventName) == ["task.state", "input.state", "output.state"])
    }

    @Test func aTaskEndingReportsItselfAfterItsInputsAndOutputs() {
        var stopped = Self.status(.stopped, inputs: [("guest", .ended)], outputs: [("rtmp://cdn/live/***", .failed)])
        stopped.reason = "idle"
        stopped.outputs[0].lastError = "connection reset"
        let changes = WebhookChange.changes(
            from: Self.status(.running, inputs: [("guest", .live)], outputs: [("rtmp://cdn/live/***", .live)]), to: stopped)
        #expect(changes == [
            .input(InputChange(id: "guest", state: .ended, previousState: .live)),
            .output(OutputChange(url: "rtmp://cdn/live/***", state: .failed, previousState: .live, lastError: "connection reset")),
            .task(TaskChange(state: .stopped, previousState: .running, reason: "idle")),
        ])
    }

    @Test func inputsAreMatchedByIdAcrossAnUpdate() {
        let before = Self.status(.running, inputs: [("a", .live), ("b", .live), ("c", .waiting)])
        let after = Self.status(.running, inputs: [("c", .live), ("d", .waiting), ("a", .live)])
        let changes = WebhookChange.changes(from: before, to: after)
        #expect(changes == [
            .input(InputChange(id: "b", state: nil, previousState: .live)),
            .input(InputChange(id: "d", state: .waiting, previousState: nil)),
            .input(InputChange(id: "c", state: .live, previousState: .waiting)),
        ])
        #expect(changes.map(\.eventName) == ["input.removed", "input.added", "input.state"])
    }

    /// Two stream keys on one path redact alike: they pair in order, so adding a third is one
    /// `output.added`, not a shuffle of states.
    @Test func outputsWithTheSameRedactedURLPairInOrder() {
        let url = "rtmp://cdn/live/***"
        let before = Self.status(.running, outputs: [(url, .live), (url, .reconnecting)])
        let after = Self.status(.running, outputs: [(url, .live), (url, .live), (url, .connecting), ("out.mp4", .live)])
        let changes = WebhookChange.changes(from: before, to: after)
        #expect(changes == [
            .output(OutputChange(url: url, state: .connecting, previousState: nil)),
            .output(OutputChange(url: "out.mp4", state: .live, previousState: nil)),
            .output(OutputChange(url: url, state: .live, previousState: .reconnecting)),
        ])
        let removal = WebhookChange.changes(from: after, to: Self.status(.running, outputs: [(url, .live)]))
        #expect(removal.map(\.eventName) == ["output.removed", "output.removed", "output.removed"])
        #expect(removal.first == .output(OutputChange(url: url, state: nil, previousState: .live)))
    }

    @Test func aRestartedWorkerIsAStateChangeBackToStarting() {
        let changes = WebhookChange.changes(from: Self.status(.running), to: Self.status(.starting))
        #expect(changes == [.task(TaskChange(state: .starting, previousState: .running))])
    }
}
