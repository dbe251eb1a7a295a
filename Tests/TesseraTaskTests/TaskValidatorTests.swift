import Foundation
import Testing
import TesseraComposition
import TesseraRTP
import TesseraTask

@Suite struct TaskValidatorTests {
    @Test func fillsEveryDefault() throws {
        let json = """
            {"inputs": [{"id": "anchor", "url": "anchor.mp4"}, {"id": "guest", "url": "rtmp://o/live/g"}],
             "encoder": {"video": {"width": 1280, "height": 720}},
             "layout": {"regions": [{"input": "anchor", "x": 0, "y": 0, "width": 640, "height": 720}]},
             "outputs": [{"url": "out.mp4"}]}
            """
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        #expect(task.taskId.wholeMatch(of: /task-[0-9a-f]{16}/) != nil)
        #expect(task.mode == .mix)
        #expect(task.pace == .realtime)
        #expect(task.maxDurationSeconds == nil)
        #expect(task.idleTimeoutSeconds == 30)
        #expect(task.callbackUrl == nil)
        #expect(task.inputs == [
            ResolvedInput(id: "anchor", source: .file(path: "/media/anchor.mp4"), loop: false, startAtMicroseconds: 0),
            ResolvedInput(id: "guest", source: .network(url: "rtmp://o/live/g"), loop: false, startAtMicroseconds: 0),
        ])
        #expect(task.video == VideoSettings(width: 1280, height: 720, fps: 30, bitrateKbps: 2000, gopFrames: 60,
                                            codec: "h264", preset: "veryfast"))
        #expect(task.audio == AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 128, codec: "aac"))
        #expect(task.layout == ResolvedLayout(
            canvasWidth: 1280, canvasHeight: 720, backgroundColor: .black, backgroundImage: nil,
            regions: [ResolvedRegion(documentIndex: 0, content: .input(0), rect: PixelRect(x: 0, y: 0, width: 640, height: 720),
                                     alpha: 255, renderMode: .crop, backgroundColor: nil, placeholderImage: nil)]))
        #expect(task.audioMix == AudioMixPlan(gains: [1, 1]))
        #expect(task.outputs == [ResolvedOutput(url: "out.mp4", kind: .file(path: "/out/out.mp4", container: .mp4))])
    }

    @Test func resolvesAFullDocument() throws {
        let json = """
            {"taskId": "pk-room-42", "mode": "mix", "pace": "asap", "maxDurationSeconds": 90, "idleTimeoutSeconds": 5,
             "callbackUrl": "https://hooks.example/tessera",
             "inputs": [
               {"id": "anchor", "url": "anchor.mp4", "loop": true},
               {"id": "guest", "url": "srt://origin.local:9000?streamid=g"},
               {"id": "caller", "rtp": {"sdp": "v=0\\r\\nc=IN IP4 127.0.0.1\\r\\nm=video 5004 RTP/AVP 96\\r\\na=rtpmap:96 H264/90000\\r\\n"}},
               {"id": "late", "url": "file:late.mkv", "startAtMs": 4000},
               {"id": "sfu", "rtp": {"allocate": {"video": "vp9", "audio": "OPUS"}}}
             ],
             "encoder": {
               "video": {"width": 1920, "height": 1080, "fps": 25, "bitrateKbps": 4500, "gopSeconds": 1.5,
                         "codec": "H264", "preset": "fast"},
               "audio": {"sampleRate": 44100, "channels": 1, "bitrateKbps": 96, "codec": "aac"}
             },
             "layout": {"backgroundColor": "#FF0000", "backgroundImage": "bg.png", "regions": [
               {"input": "guest", "units": "relative", "x": 0.5, "y": 0, "width": 0.5, "height": 1,
                "renderMode": "fit", "backgroundColor": "#00000080", "placeholderImage": "ph.jpg"},
               {"image": "file:///media/logo.png", "x": 1140, "y": 20, "width": 120, "height": 60, "zOrder": 10, "alpha": 0.8}
             ]},
             "audio": {"inputs": ["anchor", "guest", "late"], "volumes": {"guest": 80, "late": 200, "caller": 0}},
             "outputs": [{"url": "rtmp://cdn.example/live/room42?key=k"}, {"url": "rtmps://cdn.example/live/x"},
                         {"url": "srt://cdn.example:9000"}, {"url": "rec/room.mkv"}, {"url": "file:///out/raw.y4m"},
                         {"url": "a.FLV"}, {"url": "b.ts"}]}
            """
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        #expect(task.taskId == "pk-room-42")
        #expect(task.pace == .asap)
        #expect(task.maxDurationSeconds == 90)
        #expect(task.idleTimeoutSeconds == 5)
        #expect(task.callbackUrl == "https://hooks.example/tessera")
        #expect(task.inputs.map(\.source) == [
            .file(path: "/media/anchor.mp4"), .network(url: "srt://origin.local:9000?streamid=g"),
            .rtpSDP(sdp: "v=0\r\nc=IN IP4 127.0.0.1\r\nm=video 5004 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"),
            .file(path: "/media/late.mkv"), .rtpAllocate(request: RTPAllocationRequest(video: .init(codec: .vp9), audio: .init(codec: .opus))),
        ])
        #expect(task.inputs[0].loop)
        #expect(task.inputs[3].startAtMicroseconds == 4_000_000)
        #expect(task.video == VideoSettings(width: 1920, height: 1080, fps: 25, bitrateKbps: 4500, gopFrames: 38,
                                            codec: "h264", preset: "fast"))
        #expect(task.audio == AudioSettings(sampleRate: 44100, channels: 1, bitrateKbps: 96, codec: "aac"))
        let layout = try #require(task.layout)
        #expect(layout.backgroundColor == YUVColor(hex: "#FF0000"))
        #expect(layout.backgroundImage == "/media/bg.png")
        #expect(layout.regions.count == 2)
        #expect(layout.regions[0].rect == PixelRect(x: 960, y: 0, width: 960, height: 1080))
        #expect(layout.regions[0].renderMode == .fit)
        #expect(layout.regions[0].backgroundColor == YUVColor(hex: "#00000080"))
        #expect(layout.regions[0].placeholderImage == "/media/ph.jpg")
        #expect(layout.regions[1].content == .image(path: "/media/logo.png"))
        #expect(layout.regions[1].alpha == 204)
        #expect(task.audioMix.gains == [1, 0.8, 0, 2, 0])
        #expect(task.outputs.map(\.kind) == [
            .rtmp, .rtmp, .srt, .file(path: "/out/rec/room.mkv", container: .mkv),
            .file(path: "/out/raw.y4m", container: .y4m), .file(path: "/out/a.FLV", container: .flv),
            .file(path: "/out/b.ts", container: .ts),
        ])
    }

    /// Each case sets one field of a valid document to something wrong (nil removes it) and
    /// expects an issue at exactly `expected`.
    @Test(arguments: [
        ("taskId", #""bad/id""#, "taskId"),
        ("taskId", #""""#, "taskId"),
        ("mode", #""mixx""#, "mode"),
        ("pace", #""slow""#, "pace"),
        ("maxDurationSeconds", "0", "maxDurationSeconds"),
        ("idleTimeoutSeconds", "-1", "idleTimeoutSeconds"),
        ("callbackUrl", #""ftp://hooks.example/x""#, "callbackUrl"),
        ("inputs", #"[{"id": "", "url": "late.mkv"}, {"id": "anchor", "url": "anchor.mp4"}, {"id": "guest", "url": "c.mp4"}]"#,
         "inputs[0].id"),
        ("inputs", #"[{"id": "anchor", "url": "anchor.mp4"}, {"id": "guest", "url": "c.mp4"}, {"id": "guest", "url": "d.mp4"}]"#,
         "inputs[2].id"),
        ("inputs[0].loop", #""yes""#, "inputs[0].loop"),
        ("inputs[1].loop", "true", "inputs[1].loop"),
        ("inputs[0].startAtMs", "-1", "inputs[0].startAtMs"),
        ("inputs[0].url", #""missing.mp4""#, "inputs[0].url"),
        ("inputs[0].url", #""""#, "inputs[0].url"),
        ("inputs[1].url", #""rtmp:///nohost""#, "inputs[1].url"),
        ("inputs[0].rtp", #"{"sdp": "v=0\r\nm=video 5004 RTP/AVP 96"}"#, "inputs[0]"),
        ("inputs[1]", #"{"id": "guest"}"#, "inputs[1]"),
        ("inputs[1]", #"{"id": "guest", "rtp": {}}"#, "inputs[1].rtp"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"sdp": "hello"}}"#, "inputs[1].rtp.sdp"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"sdp": "m=video 5004 RTP/SAVPF 96\na=rtpmap:96 VP8/90000"}}"#,
         "inputs[1].rtp.sdp"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"sdp": "m=video 5004 RTP/AVP 96"}}"#, "inputs[1].rtp.sdp"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"allocate": {"video": "H265"}}}"#, "inputs[1].rtp.allocate.video"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"allocate": {"audio": "mp3"}}}"#, "inputs[1].rtp.allocate.audio"),
        ("inputs[1]", #"{"id": "guest", "rtp": {"allocate": {}}}"#, "inputs[1].rtp.allocate"),
        ("encoder.video.width", "1281", "encoder.video.width"),
        ("encoder.video.width", "8", "encoder.video.width"),
        ("encoder.video.width", "3842", "encoder.video.width"),
        ("encoder.video.height", "2170", "encoder.video.height"),
        ("encoder.video.height", nil, "encoder.video.height"),
        ("encoder.video.fps", "0", "encoder.video.fps"),
        ("encoder.video.fps", "61", "encoder.video.fps"),
        ("encoder.video.fps", "29.97", "encoder.video.fps"),
        ("encoder.video.bitrateKbps", "10", "encoder.video.bitrateKbps"),
        ("encoder.video.gopSeconds", "0", "encoder.video.gopSeconds"),
        ("encoder.video.gopSeconds", "21", "encoder.video.gopSeconds"),
        // Found by the API fuzz: the renditions' keyframe check once took Int() of these and trapped.
        ("encoder.video.gopSeconds", "4.5e251", "encoder.video.gopSeconds"),
        ("encoder.video.fps", "9007199254740993", "encoder.video.fps"),
        ("encoder.video.codec", #""vp9""#, "encoder.video.codec"),
        ("encoder.video.preset", #""turbo""#, "encoder.video.preset"),
        ("encoder.audio", #"{"sampleRate": 44000}"#, "encoder.audio.sampleRate"),
        ("encoder.audio", #"{"sampleRate": 96000}"#, "encoder.audio.sampleRate"),
        ("encoder.audio", #"{"channels": 6}"#, "encoder.audio.channels"),
        ("encoder.audio", #"{"bitrateKbps": 8}"#, "encoder.audio.bitrateKbps"),
        ("encoder.audio", #"{"codec": "opus"}"#, "encoder.audio.codec"),
        ("layout.backgroundColor", #""red""#, "layout.backgroundColor"),
        ("layout.backgroundImage", #""missing.png""#, "layout.backgroundImage"),
        ("layout.backgroundImage", #""anchor.mp4""#, "layout.backgroundImage"),
        ("layout.template", #""mosaic""#, "layout.template"),
        ("layout.regions[0].input", #""nobody""#, "layout.regions[0].input"),
        ("layout.regions[0].image", #""logo.png""#, "layout.regions[0]"),
        ("layout.regions[0].input", nil, "layout.regions[0]"),
        ("layout.regions[0]", #"{"image": "missing.png", "x": 0, "y": 0, "width": 10, "height": 10}"#, "layout.regions[0].image"),
        ("layout.regions[0]", #"{"image": "logo.gif", "x": 0, "y": 0, "width": 10, "height": 10}"#, "layout.regions[0].image"),
        ("layout.regions[0]", #"{"image": "rtmp://h/x.png", "x": 0, "y": 0, "width": 10, "height": 10}"#, "layout.regions[0].image"),
        ("layout.regions[0]", #"{"image": "logo.png", "placeholderImage": "ph.jpg", "x": 0, "y": 0, "width": 10, "height": 10}"#,
         "layout.regions[0].placeholderImage"),
        ("layout.regions[0].widht", "10", "layout.regions[0].widht"),
        ("layout.regions[0].width", "0", "layout.regions[0].width"),
        ("layout.regions[0].width", "-5", "layout.regions[0].width"),
        ("layout.regions[0].height", "1", "layout.regions[0].height"),
        ("layout.regions[0].x", "1e12", "layout.regions[0].x"),
        ("layout.regions[0].x", #""0""#, "layout.regions[0].x"),
        ("layout.regions[0].units", #""percent""#, "layout.regions[0].units"),
        ("layout.regions[0].alpha", "1.5", "layout.regions[0].alpha"),
        ("layout.regions[0].alpha", "-0.1", "layout.regions[0].alpha"),
        ("layout.regions[0].renderMode", #""zoom""#, "layout.regions[0].renderMode"),
        ("layout.regions[0].backgroundColor", ##""#12345""##, "layout.regions[0].backgroundColor"),
        ("layout.regions[0].placeholderImage", #""missing.png""#, "layout.regions[0].placeholderImage"),
        ("layout.regions[0].zOrder", "1.5", "layout.regions[0].zOrder"),
        ("audio", #"{"inputs": ["anchor", "x"]}"#, "audio.inputs[1]"),
        ("audio", #"{"inputs": ["anchor", "anchor"]}"#, "audio.inputs[1]"),
        ("audio", #"{"volumes": {"guest": 250}}"#, "audio.volumes.guest"),
        ("audio", #"{"volumes": {"guest": -1}}"#, "audio.volumes.guest"),
        ("audio", #"{"volumes": {"ghost": 50}}"#, "audio.volumes.ghost"),
        ("outputs", "[]", "outputs"),
        ("outputs[0].url", #""out.avi""#, "outputs[0].url"),
        ("outputs[0].url", #""out""#, "outputs[0].url"),
        ("outputs[0].url", #""http://cdn.example/live""#, "outputs[0].url"),
        ("outputs[0].url", #""udp://239.0.0.1:1234""#, "outputs[0].url"),
        ("outputs", #"[{"url": "a.mp4"}, {"url": "a.mp4"}]"#, "outputs[1].url"),
        ("outputs", #"[{"url": "a.mp4"}, {"url": "./a.mp4"}]"#, "outputs[1].url"),
        ("colour", ##""#000000""##, "colour"),
    ] as [(String, String?, String)])
    func refusesAnInvalidFieldAtItsPath(field: String, json: String?, expected: String) {
        let issues = TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base(setting: field, to: json)))
        #expect(issues.map(\.path) == [expected], "\(issues)")
    }

    @Test func theBaseDocumentIsValid() {
        #expect(TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base)).isEmpty)
    }

    @Test func messagesNameTheProblem() {
        func message(_ field: String, _ json: String?) -> String? {
            TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base(setting: field, to: json))).first?.description
        }
        #expect(message("inputs[0].url", #""missing.mp4""#) == "inputs[0].url: file not found: missing.mp4 (looked in the server's media root, --media-root)")
        #expect(message("outputs[0].url", #""out.avi""#)
            == #"outputs[0].url: no container for extension ".avi"; use .mp4, .flv, .mkv, .ts, .y4m or .m3u8 (HLS)"#)
        #expect(message("layout.regions[1].input", #""x""#) == #"layout.regions[1].input: unknown input "x""#)
        #expect(message("audio", #"{"inputs": ["anchor", "x"]}"#) == #"audio.inputs[1]: unknown input "x""#)
        #expect(message("outputs", "[]") == "outputs: at least one output is required")
        let noInputs = TaskFixtures.base(setting: "inputs", to: "[]").setting("layout", to: nil)
        #expect(TaskFixtures.issues(TaskFixtures.validate(noInputs)).map(\.description) == ["inputs: at least one input is required"])
        #expect(message("inputs[0].url", #""concat:a.mp4|b.mp4""#)?.contains(#"scheme "concat:" is not allowed"#) == true)
        #expect(message("layout.template", #""mosaic""#)
            == #"layout.template: unknown template "mosaic"; use float, grid, pk, screen-share or speaker"#)
        #expect(message("layout.regions[0].backgroundColor", #""blue""#)?.hasPrefix("layout.regions[0].backgroundColor: expected #RRGGBB") == true)
    }

    @Test func reportsAllProblemsInOneRun() {
        let json = """
            {"taskId": "no spaces", "mode": "both",
             "inputs": [{"id": "a", "url": "gone.mp4", "loop": "yes"}, {"id": "a", "url": "pipe:0"}],
             "encoder": {"video": {"width": 1279, "height": 720, "fps": 120}, "audio": {"channels": 3}},
             "layout": {"backgroundColor": "#12", "regions": [
                {"input": "b", "x": 0, "y": 0, "width": 10, "height": 10, "widht": 4},
                {"input": "a", "x": 0, "y": 0, "width": 0, "height": 10, "alpha": 2}]},
             "audio": {"volumes": {"a": 300}},
             "outputs": [{"url": "x.avi"}, {"url": "ftp://h/x.mp4"}]}
            """
        let paths = TaskFixtures.issues(TaskFixtures.validate(json)).map(\.path)
        #expect(paths.sorted() == [
            "audio.volumes.a", "encoder.audio.channels", "encoder.video.fps", "encoder.video.width",
            "inputs[0].loop", "inputs[0].url", "inputs[1].id", "inputs[1].url", "layout.backgroundColor",
            "layout.regions[0].input", "layout.regions[0].widht", "layout.regions[1].alpha", "layout.regions[1].width",
            "mode", "outputs[0].url", "outputs[1].url", "taskId",
        ])
    }

    @Test func validatesADocumentBuiltInCode() throws {
        let document = TaskDocument(
            taskId: "coded", inputs: [InputSpec(id: "a", url: "/media/anchor.mp4")],
            encoder: EncoderSpec(video: VideoEncoderSpec(width: 640, height: 360)),
            layout: LayoutSpec(regions: [RegionSpec(input: "a", x: 0, y: 0, width: 640, height: 360)]),
            outputs: [OutputSpec(url: "o.flv")])
        let task = try TaskValidator.validate(document, options: TaskFixtures.options()).get()
        #expect(task.outputs[0].kind == .file(path: "/out/o.flv", container: .flv))
        let bad = TaskDocument(inputs: [InputSpec(id: "a", url: "a.mp4")],
                               encoder: EncoderSpec(video: VideoEncoderSpec(width: 640, height: .max)))
        let issues = TaskFixtures.issues(TaskValidator.validate(bad, options: TaskFixtures.options()))
        #expect(issues.map(\.path) == ["inputs[0].url", "encoder.video.height", "outputs"])
    }

    // MARK: - Modes and shapes

    @Test func audioOnlyTaskHasNoVideoAndNoLayout() throws {
        let json = """
            {"inputs": [{"id": "a", "url": "anchor.mp4"}, {"id": "b", "rtp": {"allocate": {"audio": "opus"}}}],
             "encoder": {"audio": {"channels": 1}}, "outputs": [{"url": "room.mp4"}]}
            """
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        #expect(task.video == nil)
        #expect(task.layout == nil)
        #expect(task.audio.channels == 1)
        let withLayout = TaskFixtures.value(json).setting("layout", to: .object(["template": .string("grid")]))
        #expect(TaskFixtures.issues(TaskFixtures.validate(withLayout)).map(\.path) == ["layout"])
        let y4m = TaskFixtures.value(json).setting("outputs[0].url", to: .string("raw.y4m"))
        #expect(TaskFixtures.issues(TaskFixtures.validate(y4m)).map(\.path) == ["outputs[0].url"])
    }

    @Test func aMixWithVideoAndNoLayoutUsesTheGrid() throws {
        let document = TaskFixtures.base(setting: "layout", to: nil)
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document)))
        #expect(task.layout?.regions.map(\.rect) == [PixelRect(x: 0, y: 0, width: 640, height: 720),
                                                      PixelRect(x: 640, y: 0, width: 640, height: 720)])
        #expect(task.layout?.regions.map(\.origin) == [.templateSlot(0), .templateSlot(1)])
    }

    @Test func relayTakesOneInputAndNoLayout() throws {
        let json = """
            {"mode": "relay", "inputs": [{"id": "a", "url": "rtmp://origin/live/a"}],
             "outputs": [{"url": "rtmp://cdn/live/x"}, {"url": "copy.flv"}]}
            """
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        #expect(task.mode == .relay)
        #expect(task.video == nil)
        #expect(task.layout == nil)
        let bad = """
            {"mode": "relay", "inputs": [{"id": "a", "url": "anchor.mp4"}, {"id": "b", "url": "late.mkv"}],
             "encoder": {"video": {"width": 640, "height": 360}}, "layout": {"template": "grid"},
             "outputs": [{"url": "raw.y4m"}]}
            """
        #expect(TaskFixtures.issues(TaskFixtures.validate(bad)).map(\.path).sorted()
            == ["encoder.video", "inputs", "layout", "outputs[0].url"])
    }

    @Test func offlineRefusesATaskThatNeverEnds() {
        let looping = """
            {"inputs": [{"id": "a", "url": "anchor.mp4", "loop": true}], "outputs": [{"url": "a.mp4"}]}
            """
        let offline = TaskFixtures.options(offline: true, pace: .asap)
        let issues = TaskFixtures.issues(TaskFixtures.validate(looping, options: offline))
        #expect(issues.map(\.path) == ["maxDurationSeconds"])
        // Bounded, or not offline, or one input that ends: fine.
        let bounded = TaskFixtures.value(looping).setting("maxDurationSeconds", to: .number(10))
        #expect(TaskFixtures.issues(TaskFixtures.validate(bounded, options: offline)).isEmpty)
        #expect(TaskFixtures.issues(TaskFixtures.validate(looping)).isEmpty)
        let rtp = TaskFixtures.value(looping).setting("inputs[0]", to: TaskFixtures.value(
            #"{"id": "a", "rtp": {"sdp": "v=0\nm=audio 5006 RTP/AVP 111\na=rtpmap:111 opus/48000/2"}}"#))
        #expect(TaskFixtures.issues(TaskFixtures.validate(rtp, options: offline)).isEmpty)
    }

    @Test func defaultPaceComesFromTheOptions() throws {
        let mix = try TaskFixtures.validate(TaskFixtures.base, options: TaskFixtures.options(pace: .asap)).get()
        #expect(mix.pace == .asap)
        let mixOptions = ValidationOptions.mix(directory: "/media")
        #expect(mixOptions.defaultPace == .asap && mixOptions.offline && !mixOptions.confinePaths)
        let serve = ValidationOptions.serve(mediaRoot: "/srv/media")
        #expect(serve.defaultPace == .realtime && !serve.offline && serve.confinePaths)
        #expect(serve.outputDirectory == "/srv/media")
    }

    @Test func limitsAreEnforced() {
        var options = TaskFixtures.options()
        options.maxInputs = 1
        options.maxOutputs = 1
        options.maxRegions = 1
        let document = TaskFixtures.base(setting: "outputs", to: #"[{"url": "a.mp4"}, {"url": "b.mp4"}]"#)
        let issues = TaskFixtures.issues(TaskFixtures.validate(document, options: options))
        #expect(issues.map(\.description) == [
            "inputs: at most 1 inputs are allowed (got 2)",
            "layout.regions: at most 1 regions are allowed (got 2)",
            "outputs: at most 1 outputs are allowed (got 2)",
        ])
    }

    @Test func anOutputMayNotOverwriteAnInput() {
        var options = TaskFixtures.options()
        options.outputDirectory = "/media"
        let document = TaskFixtures.base(setting: "outputs[0].url", to: #""anchor.mp4""#)
        #expect(TaskFixtures.issues(TaskFixtures.validate(document, options: options)).map(\.description)
            == [#"outputs[0].url: would overwrite the file of input "anchor""#])
    }

    @Test(arguments: ["a", "task-0123abcd", "Room_42.v2", String(repeating: "x", count: 128)])
    func acceptsURLSafeTaskIds(id: String) {
        #expect(TaskValidator.isValidTaskId(id))
    }

    @Test(arguments: ["", "a b", "a/b", "..", ".", "é", "a?b", "a%2F", String(repeating: "x", count: 129)])
    func refusesOtherTaskIds(id: String) {
        #expect(!TaskValidator.isValidTaskId(id))
    }

    @Test func generatedTaskIdsAreUniqueAndValid() {
        let ids = (0..<100).map { _ in TaskValidator.generateTaskId() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy(TaskValidator.isValidTaskId))
    }
}
