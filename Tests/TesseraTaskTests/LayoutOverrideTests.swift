import Foundation
import Testing
import TesseraTask

/// `tessera mix TIMELINE --layout new.json` (issue 32): the file's layout replaces the base layout
/// and every update's layout; audio and SEI updates stay; problems name the file.
@Suite struct LayoutOverrideTests {
    static let document = TimelineDocumentValidationTests.document(
        extra: #", "updates": [{"atMs": 5000, "layout": \#(TimelineDocumentValidationTests.swapped)}, {"atMs": 7000, "layout": \#(TimelineDocumentValidationTests.swapped), "audio": {"volumes": {"guest": 0}}}]"#)

    static func merged(_ layout: String) -> Result<ResolvedTask, ValidationFailure> {
        switch LayoutOverride.apply(layout: Data(layout.utf8), to: Data(document.utf8)) {
        case .failure(let failure): return .failure(failure)
        case .success(let data):
            return TaskValidator.validate(json: data, options: TaskFixtures.options(offline: true, pace: .asap))
                .mapError { ValidationFailure(issues: LayoutOverride.rename($0.issues)) }
        }
    }

    @Test func theFileReplacesEveryLayoutAndKeepsAudioUpdates() throws {
        let task = try #require(TaskFixtures.task(Self.merged(TimelineDocumentValidationTests.swapped)))
        #expect(task.layout?.regions.first?.content == .input(1))
        let schedule = try #require(task.schedule)
        // The layout-only update went; the audio of the second stays, on the new layout.
        #expect(schedule.map(\.atMicroseconds) == [7_000_000])
        #expect(schedule[0].task.layout == task.layout && schedule[0].task.audioMix.gains == [1, 0])
    }

    @Test func problemsNameTheFile() {
        let wrong = #"{"regions": [{"input": "host", "x": 0, "y": 0, "width": 320, "height": 360}, {"input": "nobody", "x": 320, "y": 0, "width": 320, "height": 360}]}"#
        let issues = TaskFixtures.issues(Self.merged(wrong))
        #expect(issues.map(\.path) == ["--layout: regions[1].input"])
        #expect(issues.first?.description.hasPrefix("--layout: regions[1].input: ") == true)
        #expect(TaskFixtures.issues(Self.merged("[1]")).map(\.path) == ["--layout"])
        #expect(TaskFixtures.issues(Self.merged("{")).map(\.path) == ["--layout"])
        #expect(TaskFixtures.issues(Self.merged(#"{"regionz": []}"#)).map(\.path) == ["--layout: regionz"])
    }
}
