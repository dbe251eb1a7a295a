import Foundation
import Testing
import TesseraTask

/// `outputs[].url` with `{input}` (issue 32): one remuxed recording per input, refused with the
/// reason at `outputs[N].url` when it cannot be one.
@Suite struct PerInputOutputValidationTests {
    /// A file input, an H.264 + Opus RTP input and a VP8 + Opus one, with the outputs given.
    static func document(_ outputs: String, inputs: String? = nil) -> String {
        let inputs = inputs ?? #"{"id": "host", "url": "anchor.mp4"}, {"id": "guest", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}}, {"id": "cam", "rtp": {"allocate": {"video": "VP8", "audio": "opus"}}}"#
        return #"{"taskId": "show", "inputs": [\#(inputs)], "encoder": {"video": {"width": 640, "height": 360}}, "outputs": [{"url": "mix.mp4"}, \#(outputs)]}"#
    }

    static func validate(_ outputs: String, inputs: String? = nil, storage: Bool = false) -> Result<ResolvedTask, ValidationFailure> {
        var options = TaskFixtures.options()
        options.objectStorage = storage
        return TaskFixtures.validate(document(outputs, inputs: inputs), options: options)
    }

    static func issues(_ outputs: String, inputs: String? = nil) -> [ValidationIssue] {
        TaskFixtures.issues(validate(outputs, inputs: inputs))
    }

    @Test func aFileTemplateResolvesToOneRecordingPerInput() throws {
        let task = try #require(TaskFixtures.task(Self.validate(#"{"url": "rec/room42-{input}.mkv"}"#)))
        let recording = PerInputRecording(template: "/out/rec/room42-{input}.mkv", container: .mkv)
        #expect(task.outputs[1].kind == .perInput(recording) && task.outputs[1].upload == nil)
        #expect(recording.path(forInput: "guest") == "/out/rec/room42-guest.mkv")
    }

    /// The timeline manifest beside the first per-participant output; a later run of the task (a
    /// restarted worker, a move) writes the next free name, never over an earlier run's manifest.
    @Test func aLaterRunsManifestTakesTheNextFreeName() throws {
        let task = try #require(TaskFixtures.task(Self.validate(#"{"url": "rec/room42-{input}.mkv"}"#)))
        let place = try #require(TimelinePlace(task: task))
        let first = place.path
        #expect(first.hasSuffix("/out/rec/") == false && first.hasPrefix("/out/rec/") && first.hasSuffix(".timeline.json"))
        #expect(place.firstFree { _ in false } == place)
        let second = place.firstFree { $0 == first }
        #expect(second.path == RecordingFileNames.name(first, index: 1) && second.folder == place.folder)
        let third = place.firstFree { $0 == first || $0 == second.path }
        #expect(third.path == RecordingFileNames.name(first, index: 2))
    }

    @Test func anObjectTemplateIsSpooledAndUploaded() throws {
        let task = try #require(TaskFixtures.task(Self.validate(#"{"url": "s3://rec-bucket/room42/{input}.webm"}"#,
                                                                inputs: #"{"id": "cam", "rtp": {"allocate": {"video": "VP8", "audio": "opus"}}}"#, storage: true)))
        #expect(task.outputs[1].kind == .perInput(PerInputRecording(template: "/out/.tessera-spool/rec-bucket/room42/{input}.webm",
                                                                    container: .webm)))
        #expect(task.outputs[1].upload?.key == "room42/{input}.webm")
    }

    @Test func thePlaceholderStandsOnceInTheFileName() {
        for url in ["rec/{input}/cam.mkv", "rec/{input}-{input}.mkv", "s3://rec-bucket/{input}/a.mkv"] {
            let found = Self.issues(#"{"url": "\#(url)"}"#)
            #expect(found.map(\.path) == ["outputs[1].url"], "\(url)")
        }
        #expect(Self.issues(#"{"url": "rec/{input}/cam.mkv"}"#).first?.message.contains("file name") == true)
        #expect(Self.issues(#"{"url": "rec/{input}-{input}.mkv"}"#).first?.message.contains("only once") == true)
    }

    @Test func onlyMatroskaWebMAndMP4() {
        for url in ["rec/{input}.ts", "rec/{input}.flv", "rec/{input}", "rec/{input}.y4m"] {
            let found = Self.issues(#"{"url": "\#(url)"}"#)
            #expect(found.map(\.path) == ["outputs[1].url"] && found.first?.message.contains(".mkv, .webm or .mp4") == true, "\(url)")
        }
    }

    @Test func notOnStreamsOrHLS() {
        for url in ["rtmp://cdn.example/live/{input}", "srt://cdn.example:9000/{input}", "rtp://10.0.0.1:5004/{input}",
                    "rec/{input}.m3u8"] {
            #expect(Self.issues(#"{"url": "\#(url)"}"#).map(\.path) == ["outputs[1].url"], "\(url)")
        }
    }

    @Test func noRenditionNoHLSSettings() {
        #expect(Self.issues(#"{"url": "rec/{input}.mkv", "rendition": 0}"#).map(\.path) == ["outputs[1].rendition"])
        #expect(Self.issues(#"{"url": "rec/{input}.mkv", "hls": {}}"#).map(\.path) == ["outputs[1].hls"])
    }

    @Test func aCodecTheContainerCannotHoldIsNamed() {
        let webm = Self.issues(#"{"url": "rec/{input}.webm"}"#)
        #expect(webm.map(\.path) == ["outputs[1].url"])
        #expect(webm.first?.message.contains("input \"guest\" sends H.264") == true)
        #expect(webm.first?.message.contains(".webm") == true)
        let mp4 = Self.issues(#"{"url": "rec/{input}.mp4"}"#)
        #expect(mp4.count == 1 && mp4.first?.message.contains("input \"cam\" sends VP8") == true)
        let pcmu = Self.issues(#"{"url": "rec/{input}.mp4"}"#, inputs: #"{"id": "phone", "rtp": {"allocate": {"audio": "pcmu"}}}"#)
        #expect(pcmu.first?.message.contains("sends PCMU") == true)
        #expect(Self.issues(#"{"url": "rec/{input}.mkv"}"#).isEmpty)
    }

    @Test func containersAcceptWhatFFmpegMuxes() {
        #expect(RecordingContainer.webm.accepts(codecName: "vp9") && !RecordingContainer.webm.accepts(codecName: "aac"))
        #expect(RecordingContainer.mp4.accepts(codecName: "opus") && !RecordingContainer.mp4.accepts(codecName: "pcm_alaw"))
        #expect(RecordingContainer.mkv.accepts(codecName: "pcm_mulaw") && RecordingContainer.mkv.muxerName == "matroska")
    }

    @Test func inputIdsMustBeFileNames() {
        let found = Self.issues(#"{"url": "rec/{input}.mkv"}"#, inputs: #"{"id": "a/../../etc", "url": "anchor.mp4"}"#)
        #expect(found.map(\.path) == ["outputs[1].url"] && found.first?.message.contains("cannot name a file") == true)
    }

    @Test func anUpdateMayAddAndRemoveATemplate() throws {
        let started = try #require(TaskFixtures.task(Self.validate(#"{"url": "rec/{input}.mkv"}"#)))
        let document = TaskFixtures.value(Self.document(#"{"url": "rec/{input}.mkv"}"#))
        guard case .object(let fields) = document else { Issue.record("not an object"); return }
        let running = TaskValidator.RunningTask(document: fields, storedDocument: fields, plan: started)
        let removed = TaskValidator.validateUpdate(current: running, changes: ["outputs": TaskFixtures.value(#"[{"url": "mix.mp4"}]"#)],
                                                   options: TaskFixtures.options())
        #expect((try? removed.get())?.plan.outputs.count == 1)
        let added = TaskValidator.validateUpdate(current: running, changes: ["outputs": TaskFixtures.value(#"[{"url": "mix.mp4"}, {"url": "rec/{input}.mkv"}, {"url": "rec/b-{input}.mp4"}]"#)],
                                                 options: TaskFixtures.options())
        guard case .failure(.document(let failure)) = added else { Issue.record("expected a refusal"); return }
        #expect(failure.issues.map(\.path) == ["outputs[2].url"])
    }
}
