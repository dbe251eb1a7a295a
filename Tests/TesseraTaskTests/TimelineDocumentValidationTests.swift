import Foundation
import Testing
import TesseraTask

/// The fields that replay a recorded show (issue 32): `inputs[].sequence`, `inputs[].gaps`,
/// `updates` and `timeline`, each rule named by its path.
@Suite struct TimelineDocumentValidationTests {
    static let region = #"{"regions": [{"input": "host", "x": 0, "y": 0, "width": 320, "height": 360}, {"input": "guest", "x": 320, "y": 0, "width": 320, "height": 360}]}"#
    static let swapped = #"{"regions": [{"input": "guest", "x": 0, "y": 0, "width": 320, "height": 360}, {"input": "host", "x": 320, "y": 0, "width": 320, "height": 360}]}"#

    static func document(host: String = #""url": "anchor.mp4""#, guest: String = #""url": "late.mkv""#, extra: String = "") -> String {
        #"{"taskId": "show", "mode": "mix", "pace": "asap", "inputs": [{"id": "host", \#(host)}, {"id": "guest", \#(guest)}], "encoder": {"video": {"width": 640, "height": 360, "fps": 30}}, "layout": \#(region), "outputs": [{"url": "remix.mp4"}]\#(extra)}"#
    }

    static func validate(_ json: String, offline: Bool = true) -> Result<ResolvedTask, ValidationFailure> {
        TaskFixtures.validate(json, options: TaskFixtures.options(offline: offline, pace: .asap))
    }

    static func paths(_ json: String, offline: Bool = true) -> [String] { TaskFixtures.issues(validate(json, offline: offline)).map(\.path) }

    // MARK: sequence

    @Test func aSequencePlaysItsFilesEachAtItsStart() throws {
        let json = Self.document(guest: #""sequence": [{"url": "late.mkv", "startAtMs": 3000}, {"url": "c.mp4", "startAtMs": 11000}]"#)
        let task = try #require(TaskFixtures.task(Self.validate(json)))
        #expect(task.inputs[1].source == .sequence([TimedFile(path: "/media/late.mkv", startAtMicroseconds: 3_000_000),
                                                    TimedFile(path: "/media/c.mp4", startAtMicroseconds: 11_000_000)]))
        #expect(task.inputs[1].source.filePaths == ["/media/late.mkv", "/media/c.mp4"])
    }

    @Test func sequenceRulesAreNamedByPath() {
        #expect(Self.paths(Self.document(guest: #""sequence": []"#)) == ["inputs[1].sequence"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "late.mkv", "startAtMs": 3000}, {"url": "c.mp4", "startAtMs": 3000}]"#))
                == ["inputs[1].sequence[1].startAtMs"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "nope.mkv", "startAtMs": 0}]"#)) == ["inputs[1].sequence[0].url"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "rtmp://o.local/live/x", "startAtMs": 0}]"#))
                == ["inputs[1].sequence[0].url"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "late.mkv"}]"#)) == ["inputs[1].sequence[0].startAtMs"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "late.mkv", "startAtMs": -1}]"#)) == ["inputs[1].sequence[0].startAtMs"])
        #expect(Self.paths(Self.document(guest: #""sequence": [{"url": "late.mkv", "startAtMs": 0, "at": 1}]"#)) == ["inputs[1].sequence[0].at"])
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "sequence": [{"url": "c.mp4", "startAtMs": 0}]"#)) == ["inputs[1]"])
        #expect(Self.paths(Self.document(guest: #""startAtMs": 5, "sequence": [{"url": "c.mp4", "startAtMs": 0}]"#)) == ["inputs[1].startAtMs"])
        #expect(Self.paths(Self.document(guest: #""loop": true, "sequence": [{"url": "c.mp4", "startAtMs": 0}]"#)) == ["inputs[1].loop"])
    }

    // MARK: gaps

    @Test func gapsAreKeptInMicroseconds() throws {
        let task = try #require(TaskFixtures.task(Self.validate(Self.document(guest: #""url": "late.mkv", "gaps": [{"fromMs": 4000, "toMs": 8000}, {"fromMs": 9000, "toMs": 9500}]"#))))
        #expect(task.inputs[1].gaps == [InputGap(fromMicroseconds: 4_000_000, toMicroseconds: 8_000_000),
                                        InputGap(fromMicroseconds: 9_000_000, toMicroseconds: 9_500_000)])
        #expect(task.inputs[1].gaps.gap(at: 7_999_999)?.fromMicroseconds == 4_000_000)
        #expect(task.inputs[1].gaps.gap(at: 8_000_000) == nil && task.inputs[1].gaps.gap(at: 3_999_999) == nil)
        #expect(task.inputs[1].gaps.gap(at: 9_200_000)?.toMicroseconds == 9_500_000)
        #expect(task.inputs[0].gaps.isEmpty)
    }

    @Test func gapRulesAreNamedByPath() {
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "gaps": [{"fromMs": 4000, "toMs": 4000}]"#)) == ["inputs[1].gaps[0].toMs"])
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "gaps": [{"fromMs": 4000, "toMs": 8000}, {"fromMs": 7000, "toMs": 9000}]"#))
                == ["inputs[1].gaps[1].fromMs"])
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "gaps": [{"fromMs": -5, "toMs": 8000}]"#)) == ["inputs[1].gaps[0]"])
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "gaps": [{"fromMs": 5}]"#)) == ["inputs[1].gaps[0].toMs"])
        #expect(Self.paths(Self.document(guest: #""url": "late.mkv", "gaps": {"fromMs": 5, "toMs": 6}"#)) == ["inputs[1].gaps"])
    }

    // MARK: updates

    @Test func updatesBecomeTheWholeTaskAtTheirTime() throws {
        let json = Self.document(extra: #", "updates": [{"atMs": 5000, "layout": \#(Self.swapped)}, {"atMs": 7000, "audio": {"volumes": {"guest": 0}}}]"#)
        let task = try #require(TaskFixtures.task(Self.validate(json)))
        let schedule = try #require(task.schedule)
        #expect(schedule.map(\.atMicroseconds) == [5_000_000, 7_000_000])
        #expect(schedule[0].task.layout?.regions.first?.content == .input(1))
        #expect(schedule[0].task.audioMix == task.audioMix && schedule[0].task.schedule == nil)
        // The second keeps the first's layout: updates build on each other as PATCHes do.
        #expect(schedule[1].task.layout == schedule[0].task.layout && schedule[1].task.audioMix.gains == [1, 0])
        #expect(schedule[1].task.inputs == task.inputs && schedule[1].task.outputs == task.outputs)
    }

    @Test func aScheduleIsAppliedAtTheFirstFrameAtOrAfterItsTime() throws {
        let json = Self.document(extra: #", "updates": [{"atMs": 5000, "layout": \#(Self.swapped)}, {"atMs": 5010, "audio": {"volumes": {"guest": 0}}}, {"atMs": 9000, "sei": {"appData": "x"}}]"#)
        let task = try #require(TaskFixtures.task(Self.validate(json)))
        var schedule = UpdateSchedule(task.schedule ?? [])
        #expect(schedule.due(at: 0) == nil && schedule.due(at: 4_999_999) == nil)
        // Frames at 30 fps: 4.9667 s, then 5.0 s (the first update), then 5.0333 s (the second).
        #expect(schedule.due(at: 5_000_000) == task.schedule?[0].task)
        #expect(schedule.due(at: 5_033_333) == task.schedule?[1].task)
        #expect(schedule.due(at: 20_000_000) == task.schedule?[2].task && schedule.isFinished)
        // Two due at one frame: the later one, which holds both.
        var skipping = UpdateSchedule(task.schedule ?? [])
        #expect(skipping.due(at: 6_000_000) == task.schedule?[1].task)
    }

    @Test func updateRulesAreNamedByPath() {
        func paths(_ updates: String) -> [String] { Self.paths(Self.document(extra: #", "updates": \#(updates)"#)) }
        #expect(paths(#"[{"atMs": 5000, "layout": {"regions": [{"input": "host", "x": 0, "y": 0, "width": -2, "height": 360}]}}]"#)
                == ["updates[0].layout.regions[0].width"])
        #expect(paths(#"[{"atMs": 5000, "layout": {"regions": [{"input": "nobody", "x": 0, "y": 0, "width": 320, "height": 360}]}}]"#)
                == ["updates[0].layout.regions[0].input"])
        #expect(paths(#"[{"atMs": 5000, "audio": {"volumes": {"nobody": 1}}}]"#) == ["updates[0].audio.volumes.nobody"])
        #expect(paths(#"[{"atMs": 5000, "audio": {}}, {"atMs": 4000, "audio": {}}]"#) == ["updates[1].atMs"])
        #expect(paths(#"[{"atMs": 5000}]"#) == ["updates[0]"])
        #expect(paths(#"[{"layout": {}}]"#) == ["updates[0].atMs"])
        #expect(paths(#"[{"atMs": 5000, "encoder": {}}]"#) == ["updates[0].encoder", "updates[0]"])
        #expect(paths(#"[{"atMs": 5000, "layout": {"regionz": []}}]"#) == ["updates[0].layout.regionz"])
        #expect(paths(#"{"atMs": 5000}"#) == ["updates"])
    }

    @Test func aLiveTaskRefusesUpdates() {
        let json = Self.document(extra: #", "updates": [{"atMs": 5000, "audio": {}}]"#)
        let issues = TaskFixtures.issues(Self.validate(json, offline: false))
        #expect(issues.map(\.path) == ["updates"] && issues.first?.message.contains("PATCH") == true)
    }

    // MARK: timeline

    @Test func aTimelineObjectIsKeptAsWritten() throws {
        let json = Self.document(extra: #", "timeline": {"startedAt": "2026-11-28T07:00:00Z", "files": [{"input": "host", "offsetMs": 0}]}"#)
        let read = TaskDocumentReader.read(Data(json.utf8))
        #expect(read.issues.isEmpty)
        guard case .object(let timeline)? = read.document?.timeline else { Issue.record("timeline not kept"); return }
        #expect(timeline["startedAt"] == .string("2026-11-28T07:00:00Z"))
        #expect(TaskFixtures.task(Self.validate(json)) != nil)
        #expect(Self.paths(Self.document(extra: #", "timeline": [1]"#)) == ["timeline"])
    }

    @Test func anUpdateMayNotCarryTimelineFields() {
        let fields = ["updates", "timeline"].filter { !TaskValidator.updatableFields.contains($0) }
        #expect(fields.count == 2)
    }
}
