import Testing
import TesseraComposition
import TesseraTask
import TesseraWorker
import TesseraWorkerProtocol

/// How a mix ends and what its status says: the outputs finished once, the reason it ended by
/// itself, every input and output in a final state.
@Suite struct MixPipelineLifecycleTests {
    typealias H = MixHarness

    @Test func endsWithItsLastInputAndFinishesTheOutputsOnce() throws {
        let mix = try H(H.sideBySide(), scripts: ["a": H.clip(H.red, until: 0.4), "b": H.clip(H.blue, until: 0.8)])
        let record = try mix.run()
        #expect(record.frames.count == 8)
        #expect(record.finished == 1 && record.abandoned == 0)
        let status = mix.pipeline.status
        #expect(status.state == .running)
        #expect(status.frames == 8)
        #expect(status.reason == nil)
        #expect(status.inputs.map(\.state) == [.ended, .ended])
        #expect(status.inputs.map(\.frames) == [4, 8])
        #expect(status.outputs.map(\.state) == [.finished])
    }

    @Test func endsAtItsMaximumDurationAndSaysWhy() throws {
        let mix = try H(H.sideBySide(extra: #", "maxDurationSeconds": 0.5"#),
                        scripts: ["a": H.clip(H.red, until: 2), "b": H.clip(H.blue, until: 2)])
        let record = try mix.run()
        #expect(record.frames.count == 5)
        #expect(mix.pipeline.status.reason == "reached maxDurationSeconds (0.5 s)")
    }

    /// An input that cannot be opened fails the task by name before any output is opened.
    @Test func anInputThatCannotBeOpenedFailsTheTaskByName() throws {
        let mix = try H(H.sideBySide(), scripts: ["a": H.clip(H.red, until: 1)])
        let error = #expect(throws: TaskError.self) { try mix.run() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("input \"b\""))
        #expect(mix.outputs.recorded.frames.isEmpty)
    }

    @Test func beforeItRunsTheStatusListsTheTaskWaiting() throws {
        let mix = try H(H.sideBySide(), scripts: [:])
        let status = mix.pipeline.status
        #expect(status.state == .starting)
        #expect(status.inputs.map(\.state) == [.waiting, .waiting])
        #expect(status.outputs.map(\.state) == [.connecting])
    }
}
