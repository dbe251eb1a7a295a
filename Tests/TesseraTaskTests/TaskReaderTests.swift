import Foundation
import Testing
import TesseraTask

@Suite struct TaskReaderTests {
    private func read(_ json: String) -> (document: TaskDocument?, issues: [ValidationIssue]) {
        TaskDocumentReader.read(Data(json.utf8))
    }

    @Test func readsTheSpecExample() throws {
        let json = """
            {
              "taskId": "pk-room-42", "mode": "mix", "pace": "realtime",
              "inputs": [
                {"id": "anchor", "url": "media/anchor.mp4", "loop": true},
                {"id": "guest",  "url": "rtmp://origin.local/live/guest"},
                {"id": "caller", "rtp": {"sdp": "v=0\\r\\n..."}},
                {"id": "late",   "url": "recordings/late.mkv", "startAtMs": 4000},
                {"id": "sfu",    "rtp": {"allocate": {"video": "H264", "audio": "opus"}}}
              ],
              "encoder": {
                "video": {"width": 1280, "height": 720, "fps": 30, "bitrateKbps": 2500, "gopSeconds": 2,
                          "codec": "h264", "preset": "veryfast"},
                "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128, "codec": "aac"}
              },
              "layout": {
                "backgroundColor": "#101010", "backgroundImage": "media/bg.png",
                "regions": [
                  {"input": "guest", "units": "relative", "x": 0.5, "y": 0, "width": 0.5, "height": 1,
                   "zOrder": 0, "renderMode": "fit", "backgroundColor": "#000000", "placeholderImage": "p.png"},
                  {"image": "media/logo.png", "x": 1140, "y": 20, "width": 120, "height": 60, "zOrder": 10, "alpha": 0.8}
                ]
              },
              "audio": {"inputs": ["anchor", "guest"], "volumes": {"guest": 80}},
              "outputs": [{"url": "rtmp://cdn.example/live/room42?key=..."}, {"url": "recordings/room42.mp4"}],
              "maxDurationSeconds": 60, "idleTimeoutSeconds": 10, "callbackUrl": "https://hooks.example/t"
            }
            """
        let (document, issues) = read(json)
        #expect(issues.isEmpty)
        let doc = try #require(document)
        #expect(doc.taskId == "pk-room-42")
        #expect(doc.inputs.count == 5)
        #expect(doc.inputs[0].loop == true)
        #expect(doc.inputs[2].rtp?.sdp == "v=0\r\n...")
        #expect(doc.inputs[3].startAtMs == 4000)
        #expect(doc.inputs[4].rtp?.allocate == RTPAllocation(video: "H264", audio: "opus"))
        #expect(doc.encoder?.video == VideoEncoderSpec(width: 1280, height: 720, fps: 30, bitrateKbps: 2500,
                                                        gopSeconds: 2, codec: "h264", preset: "veryfast"))
        #expect(doc.encoder?.audio?.sampleRate == 48000)
        #expect(doc.layout?.regions?[0].units == "relative")
        #expect(doc.layout?.regions?[0].placeholderImage == "p.png")
        #expect(doc.layout?.regions?[1].alpha == 0.8)
        #expect(doc.audio?.volumes == ["guest": 80])
        #expect(doc.outputs.map(\.url) == ["rtmp://cdn.example/live/room42?key=...", "recordings/room42.mp4"])
        #expect(doc.maxDurationSeconds == 60)
        #expect(doc.callbackUrl == "https://hooks.example/t")
    }

    @Test(arguments: [
        (#"{"inputs": [{"id": "a", "url": "a.mp4"}, {"id": "b", "url": "b.mp4", "loop": "yes"}]}"#,
         "inputs[1].loop", "expected a boolean"),
        (#"{"encoder": {"video": {"height": 720}}}"#, "encoder.video.width", "required"),
        (#"{"layout": {"regions": [{"input": "a", "x": 0, "y": 0, "widht": 10, "width": 10, "height": 10}]}}"#,
         "layout.regions[0].widht", "unknown field"),
        (#"{"encoder": {"video": {"width": 1280.5, "height": 720}}}"#, "encoder.video.width", "expected an integer"),
        (#"{"encoder": {"video": {"width": "1280", "height": 720}}}"#, "encoder.video.width", "expected an integer"),
        (#"{"encoder": {"video": {"width": 1280, "height": 720, "fps": true}}}"#, "encoder.video.fps", "expected an integer"),
        (#"{"audio": {"volumes": {"guest": "loud"}}}"#, "audio.volumes.guest", "expected a number"),
        (#"{"audio": {"inputs": ["a", 3]}}"#, "audio.inputs[1]", "expected a string"),
        (#"{"inputs": {"id": "a"}}"#, "inputs", "expected an array"),
        (#"{"inputs": ["a.mp4"]}"#, "inputs[0]", "expected an object"),
        (#"{"inputs": [{"url": "a.mp4"}]}"#, "inputs[0].id", "required"),
        (#"{"outputs": [{}]}"#, "outputs[0].url", "required"),
        (#"{"outputs": [{"url": "a.mp4", "key": "x"}]}"#, "outputs[0].key", "unknown field"),
        (#"{"taskid": "x"}"#, "taskid", "unknown field"),
        (#"{"encoder": {"vidoe": {}}}"#, "encoder.vidoe", "unknown field"),
        (#"{"inputs": [{"id": "a", "rtp": {"allocate": {"video": "H264", "data": true}}}]}"#,
         "inputs[0].rtp.allocate.data", "unknown field"),
        (#"{"layout": "grid"}"#, "layout", "expected an object"),
        (#"{"maxDurationSeconds": "10"}"#, "maxDurationSeconds", "expected a number"),
        (#"{"inputs": [{"id": "a", "startAtMs": 1.5}]}"#, "inputs[0].startAtMs", "expected an integer"),
    ])
    func reportsFieldProblemsAtTheirPath(json: String, path: String, message: String) {
        let (document, issues) = read(json)
        #expect(document == nil)
        #expect(issues.contains { $0.path == path && $0.message.hasPrefix(message) }, "\(issues)")
    }

    @Test func reportsEveryProblemInOneRun() {
        let json = """
            {"taskid": "x", "inputs": [{"id": 3, "url": "a.mp4", "loop": 1}, {"id": "b", "urll": "b.mp4"}],
             "encoder": {"video": {"width": 1280}},
             "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "widht": 10, "height": 10}]},
             "outputs": [{"url": 5}]}
            """
        let paths = Set(read(json).issues.map(\.path))
        #expect(paths == ["taskid", "inputs[0].id", "inputs[0].loop", "inputs[1].urll", "encoder.video.height",
                          "layout.regions[0].widht", "layout.regions[0].width", "outputs[0].url"])
    }

    @Test func suggestsTheFieldATypoMeant() {
        let issues = read(#"{"layout": {"regions": [{"input": "a", "x": 0, "y": 0, "widht": 1, "width": 2, "height": 2}]}}"#).issues
        #expect(issues.map(\.description) == [#"layout.regions[0].widht: unknown field; did you mean "width"?"#])
    }

    @Test func nullReadsAsAbsent() throws {
        let (document, issues) = read(#"{"callbackUrl": null, "inputs": [{"id": "a", "url": "a.mp4", "loop": null}]}"#)
        #expect(issues.isEmpty)
        let doc = try #require(document)
        #expect(doc.callbackUrl == nil)
        #expect(doc.inputs[0].loop == nil)
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{\"taskId\": \"a\",}", "expected a field name"),
        ("{\"taskId\": \"a\"\n \"mode\": \"mix\"}", "line 2, column 2"),
        ("{\"a\": 1, \"a\": 2}", "duplicate field \"a\""),
        ("{\"a\": tru}", "unexpected character"),
        ("{\"a\": 01}", "expected ',' or '}'"),
        ("{\"a\": \"x\ny\"}", "control character"),
        ("{} {}", "unexpected text after"),
        ("{\"a\": \"\\u+12f\"}", "four hex digits"),
        (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "nested deeper"),
    ])
    func malformedJSONIsOneIssueForTheWholeDocument(json: String, fragment: String) {
        let (document, issues) = read(json)
        #expect(document == nil)
        #expect(issues.count == 1)
        #expect(issues.first?.path == "")
        #expect(issues.first?.message.hasPrefix("malformed JSON at line") == true)
        #expect(issues.first?.message.contains(fragment) == true, "\(issues)")
    }

    @Test func parseErrorsCarryLineAndColumn() {
        #expect(throws: JSONParseError(message: "expected ',' or '}'", line: 2, column: 2)) {
            try JSONValue.parse(Data("{\"a\": 1\n \"b\": 2}".utf8))
        }
    }

    @Test func topLevelMustBeAnObject() {
        let issues = read("[1, 2]").issues
        #expect(issues == [ValidationIssue(path: "", message: "expected a JSON object (the task document), got an array")])
    }

    @Test func parsesStringsAndNumbersExactly() throws {
        let value = try JSONValue.parse(Data(#"{"s": "a\"\\\/\n\u00e9\ud83d\ude00", "n": -1.5e3, "z": 0, "t": true, "x": null}"#.utf8))
        #expect(value == .object(["s": .string("a\"\\/\né😀"), "n": .number(-1500), "z": .number(0),
                                  "t": .bool(true), "x": .null]))
    }

    @Test func jsonValueRoundTripsThroughCodable() throws {
        let value = JSONValue.object(["a": .array([.number(1), .bool(false), .null, .string("x")]), "b": .object([:])])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
    }

    @Test func readsUpdateSectionsWithTheirPaths() {
        let layout = TaskDocumentReader.readLayout(TaskFixtures.value(#"{"template": "grid", "regions": [{"input": "a"}]}"#))
        #expect(layout.layout == nil)
        #expect(layout.issues.map(\.path) == ["layout.regions[0].x", "layout.regions[0].y", "layout.regions[0].width",
                                              "layout.regions[0].height"])
        let outputs = TaskDocumentReader.readOutputs(TaskFixtures.value(#"[{"url": "a.mp4"}, {"url": "rtmp://h/x"}]"#))
        #expect(outputs.outputs == [OutputSpec(url: "a.mp4"), OutputSpec(url: "rtmp://h/x")])
        let inputs = TaskDocumentReader.readInputs(TaskFixtures.value(#"[{"id": "a", "url": "a.mp4", "lop": true}]"#))
        #expect(inputs.issues.map(\.description) == [#"inputs[0].lop: unknown field; did you mean "loop"?"#])
        let audio = TaskDocumentReader.readAudio(TaskFixtures.value(#"{"volumes": {"a": 50}}"#))
        #expect(audio.audio == AudioSpec(volumes: ["a": 50]))
    }

    @Test func issueDescriptionIsPathColonMessage() {
        #expect(ValidationIssue(path: "inputs[1].url", message: "required").description == "inputs[1].url: required")
        #expect(ValidationIssue(path: "", message: "malformed").description == "malformed")
    }
}
