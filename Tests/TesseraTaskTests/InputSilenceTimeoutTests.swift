import Testing
import TesseraTask

@Suite struct InputSilenceTimeoutTests {
    static func result(_ json: String?) -> Result<ResolvedTask, ValidationFailure> {
        TaskFixtures.validate(TaskFixtures.base(setting: "inputs[1].silenceTimeoutMs", to: json))
    }

    @Test func defaultsToTwoSeconds() throws {
        let task = try #require(TaskFixtures.task(Self.result(nil)))
        #expect(task.inputs.map(\.silenceMicroseconds) == [2_000_000, 2_000_000])
    }

    @Test(arguments: [(200, 200_000), (1500, 1_500_000), (600_000, 600_000_000)])
    func takesMillisecondsWithinRange(ms: Int, microseconds: Int64) throws {
        let task = try #require(TaskFixtures.task(Self.result(String(ms))))
        #expect(task.inputs[1].silenceMicroseconds == microseconds)
        #expect(task.inputs[0].silenceMicroseconds == 2_000_000)
    }

    @Test(arguments: ["199", "600001", "-5", "\"2s\"", "1.5"])
    func refusesOthersAtItsPath(json: String) {
        let issues = TaskFixtures.issues(Self.result(json))
        #expect(issues.map(\.path) == ["inputs[1].silenceTimeoutMs"], "\(issues)")
    }
}
