import Foundation
import Testing
import TesseraTask

@Suite struct ShowTimelineTests {
    private let layout = LayoutSpec(backgroundColor: "#000000", regions: [
        RegionSpec(input: "host", x: 0, y: 0, width: 160, height: 120),
        RegionSpec(input: "guest", x: 160, y: 0, width: 160, height: 120)])
    private let swapped = LayoutSpec(backgroundColor: "#000000", regions: [
        RegionSpec(input: "guest", x: 0, y: 0, width: 160, height: 120),
        RegionSpec(input: "host", x: 160, y: 0, width: 160, height: 120)])

    private func show() -> ShowTimeline {
        let sections = TaskSections(encoder: EncoderSpec(video: VideoEncoderSpec(width: 320, height: 240, fps: 30)),
                                    layout: layout, audio: AudioSpec(volumes: ["host": 0.5]))
        var show = ShowTimeline(taskId: "show", startedAt: 1_800_000_000.25, sections: sections,
                                inputs: [("host", 500_000), ("guest", 2_000_000)])
        show.compositeStarted(at: 400_000)
        return show
    }

    private func file(_ input: String, _ url: String, _ offset: Int64, _ end: Int64? = nil) -> RecordedFile {
        RecordedFile(input: input, url: url, offsetMicroseconds: offset, endMicroseconds: end,
                     video: RecordedStream(codec: "h264", width: 320, height: 240), audio: RecordedStream(codec: "opus"))
    }

    @Test func oneFileIsAURLAtItsOffsetInWholeMilliseconds() {
        var show = show()
        show.input("host", live: true, at: 300_000)
        let first = show.recorded(file("host", "/rec/host.mkv", 350_600))
        let again = show.recorded(file("host", "/rec/host.mkv", 350_600))
        #expect(first && !again)
        let manifest = show.manifest(now: 1_000_000)
        #expect(manifest.inputs.count == 1)
        #expect(manifest.inputs[0].url == "/rec/host.mkv" && manifest.inputs[0].startAtMs == 351 && manifest.inputs[0].sequence == nil)
        #expect(manifest.inputs[0].silenceTimeoutMs == 500)
        #expect(manifest.inputs[0].gaps == nil)
        #expect(manifest.timeline.files[0].endMs == nil && manifest.timeline.compositeStartMs == 400)
        #expect(manifest.timeline.startedAt == "2027-01-15T08:00:00.250Z")
        #expect(manifest.mode == "mix" && manifest.pace == "asap" && manifest.outputs == [.init(url: "show.remix.mp4")])
        #expect(manifest.layout == layout && manifest.encoder?.video?.fps == 30 && manifest.updates == nil)
    }

    @Test func aRejoinIsASequenceAndItsAbsenceAGapClippedToTheFiles() {
        var show = show()
        show.input("host", live: true, at: 200_000)           // absent before: outside its files
        show.recorded(file("host", "/rec/host.mkv", 250_000))
        show.input("host", live: false, at: 8_000_033)
        show.recorded(file("host", "/rec/host.mkv", 250_000, 7_500_000))
        show.input("host", live: true, at: 11_500_999)
        show.recorded(file("host", "/rec/host.1.mkv", 11_600_000))
        show.ended(at: 17_000_000)
        show.recorded(file("host", "/rec/host.1.mkv", 11_600_000, 16_900_000))
        let host = show.manifest(now: 0).inputs[0]
        #expect(host.url == nil && host.startAtMs == nil)
        #expect(host.sequence == [.init(url: "/rec/host.mkv", startAtMs: 250), .init(url: "/rec/host.1.mkv", startAtMs: 11_600)])
        #expect(host.gaps == [.init(fromMs: 8_000, toMs: 11_500)])
        let files = show.manifest(now: 0).timeline.files
        #expect(files.map(\.gaps) == [nil, nil])                 // the gap lies between the two files
        #expect(files.map(\.endMs) == [7_500, 16_900])
    }

    @Test func anOpenAbsenceEndsAtTheEndAndInputsWithoutFilesAreLeftOut() {
        var show = show()
        show.input("guest", live: true, at: 2_600_000)
        show.recorded(file("guest", "/rec/guest.mkv", 2_650_000))
        show.input("guest", live: false, at: 5_000_000)
        #expect(show.manifest(now: 6_000_000).inputs.map(\.id) == ["guest"])
        #expect(show.manifest(now: 6_000_000).inputs[0].gaps == [.init(fromMs: 5_000, toMs: 6_000)])
        show.ended(at: 9_000_000)
        #expect(show.manifest(now: 1).inputs[0].gaps == [.init(fromMs: 5_000, toMs: 9_000)])
        #expect(show.manifest(now: 1).timeline.endMs == 9_000)
    }

    @Test func updatesKeepOnlyTheSectionsThatChangedInTheOrderTheyApplied() {
        var show = show()
        let start = show.current
        var patched = start
        patched.layout = swapped
        let changed = show.updateApplied(patched, inputs: [("host", 500_000), ("guest", 2_000_000)], at: 5_433_333)
        let same = show.updateApplied(patched, inputs: [("host", 500_000), ("guest", 2_000_000)], at: 6_000_000)
        #expect(changed && !same)
        patched.audio = nil
        patched.sei = SEISpec(appData: "hi")
        let second = show.updateApplied(patched, inputs: [("host", 500_000), ("guest", 2_000_000), ("clip", 1_000_000)], at: 7_000_000)
        #expect(second)
        let updates = show.manifest(now: 8_000_000).updates ?? []
        #expect(updates.map(\.atMs) == [5_433, 7_000])
        #expect(updates[0].layout == swapped && updates[0].audio == nil && updates[0].sei == nil)
        #expect(updates[1].layout == nil && updates[1].audio == AudioSpec() && updates[1].sei == SEISpec(appData: "hi"))
        // The manifest keeps the start's sections; an input the update added is absent until its media.
        #expect(show.manifest(now: 8_000_000).layout == layout)
        #expect(show.absences(of: "clip", until: 8_000_000) == [InputGap(fromMicroseconds: 7_000_000, toMicroseconds: 8_000_000)])
    }

    @Test func beforeTheCompositeStartsNoInputIsAbsent() {
        var show = ShowTimeline(taskId: "show", startedAt: 0, sections: TaskSections(), inputs: [("host", 500_000), ("guest", 500_000)])
        show.compositeStarted(at: 766_667)
        show.input("host", live: true, at: 766_667)
        show.input("guest", live: false, at: 766_667)
        show.input("guest", live: true, at: 2_000_000)
        #expect(show.absences(of: "host", until: 3_000_000) == [])
        #expect(show.absences(of: "guest", until: 3_000_000) == [InputGap(fromMicroseconds: 766_667, toMicroseconds: 2_000_000)])
    }

    @Test func aRemovedInputIsAbsentFromTheUpdate() {
        var show = show()
        show.input("guest", live: true, at: 1_000_000)
        show.updateApplied(nil, inputs: [("host", 500_000)], at: 4_000_000)
        #expect(show.absences(of: "guest", until: 5_000_000)
            == [InputGap(fromMicroseconds: 400_000, toMicroseconds: 1_000_000), InputGap(fromMicroseconds: 4_000_000, toMicroseconds: 5_000_000)])
    }

    @Test func theManifestIsATaskDocumentTheValidatorAccepts() throws {
        var show = show()
        show.input("host", live: true, at: 300_000)
        show.input("guest", live: true, at: 300_000)
        show.recorded(file("host", "host.mkv", 350_000, 4_000_000))
        show.recorded(file("host", "host.1.mkv", 6_000_000, 9_000_000))
        show.recorded(file("guest", "guest.mkv", 360_000, 9_000_000))
        var patched = show.current
        patched.layout = swapped
        show.updateApplied(patched, inputs: [("host", 500_000), ("guest", 2_000_000)], at: 5_000_000)
        show.input("host", live: false, at: 4_500_000)
        show.input("host", live: true, at: 6_000_000)
        show.ended(at: 9_000_000)
        let data = try show.manifest(now: 0).encoded()
        #expect(try JSONDecoder().decode(TimelineManifest.self, from: data) == show.manifest(now: 0))
        let options = ValidationOptions(mediaRoot: "/rec", defaultPace: .asap, offline: true, confinePaths: false,
                                        fileExists: { _ in true }, resolveHost: { _ in [[127, 0, 0, 1]] }, inspectFile: { _ in nil })
        switch TaskValidator.validate(json: data, options: options) {
        case .success(let task):
            #expect(task.inputs.map(\.id) == ["host", "guest"])
            #expect(task.inputs[0].gaps == [InputGap(fromMicroseconds: 4_500_000, toMicroseconds: 6_000_000)])
            #expect(task.inputs[1].startAtMicroseconds == 360_000)
            #expect(task.pace == .asap)
        case .failure(let failure):
            Issue.record("the manifest does not validate: \(failure.issues)")
        }
    }
}
