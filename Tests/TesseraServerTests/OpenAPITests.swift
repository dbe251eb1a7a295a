import Foundation
import Hummingbird
import HummingbirdTesting
import TesseraComposition
import TesseraRTP
import TesseraTask
import TesseraMedia
import TesseraObjectStorage
import TesseraServer
import TesseraService
import TesseraWorkerProtocol
import Testing
import Yams

/// `Resources/openapi.yaml`, parsed, against what the server really does: its routes, its auth,
/// and the JSON its Codable types write.
@Suite struct OpenAPITests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]

    func served(apiToken: String? = nil) async throws -> (text: String, contentType: String?) {
        let server = TestServer(apiToken: apiToken)
        return try await server.app().test(.router) { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get, headers: bearer(apiToken ?? ""))
            #expect(response.status == .ok)
            return (response.text, response.headers[.contentType])
        }
    }

    func document() async throws -> [String: Any] {
        try #require(yamlMap(try Yams.load(yaml: try await served().text)))
    }

    /// `method path` → the operation object, for every operation under `paths`.
    func operations(_ document: [String: Any]) -> [String: [String: Any]] {
        var operations: [String: [String: Any]] = [:]
        for (path, item) in yamlMap(document["paths"]) ?? [:] {
            for (method, operation) in yamlMap(item) ?? [:] where Self.methods.contains(method) {
                operations["\(method.uppercased()) \(path)"] = yamlMap(operation) ?? [:]
            }
        }
        return operations
    }

    var routes: [RouteSignature] {
        let server = TestServer()
        return TesseraRouter(service: server.service, configuration: server.configuration, metrics: server.metrics).routes.routes
    }

    @Test func isServedAsYAMLWithOrWithoutAToken() async throws {
        let (text, contentType) = try await served()
        #expect(contentType?.hasPrefix("application/yaml") == true)
        #expect((try yamlMap(Yams.load(yaml: text))?["openapi"] as? String)?.hasPrefix("3.0.") == true)
        // The file is served as it is, whatever the configuration.
        #expect(try await served(apiToken: "token").text == text)
    }

    @Test func listsEveryRouteOfTheRouterAndNoOther() async throws {
        let documented = Set(operations(try await document()).keys)
        let routed = Set(routes.map { "\($0.method) \($0.path)" })
        #expect(routed.count == 18)
        #expect(routed.subtracting(documented).isEmpty, "routes missing from openapi.yaml: \(routed.subtracting(documented))")
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed))")
    }

    /// The bearer scheme applies everywhere but on the routes that ask no token, which say `security: []`.
    @Test func documentsWhichRoutesAskTheToken() async throws {
        let document = try await document()
        let security = try #require(document["security"] as? [Any])
        #expect(security.count == 1 && yamlMap(security.first)?["bearerAuth"] != nil)
        let operations = operations(document)
        for route in routes {
            let override = operations["\(route.method) \(route.path)"]?["security"] as? [Any]
            if route.requiresAuth {
                #expect(override == nil, "\(route) must not drop the token requirement")
            } else {
                #expect(override?.isEmpty == true, "\(route) asks no token: it needs security: []")
            }
        }
    }

    @Test func statusAndWebhookEventsMatchTheirCodableTypes() async throws {
        let check = OpenAPISchemaCheck(document: try await document())
        let status = Samples.fullStatus
        try check.check(JSONEncoder().encode(status), against: "TaskStatus", sample: "status")
        try check.check(JSONEncoder().encode(TaskStatus(taskId: "t", state: .starting, startedAt: "2026-01-01T00:00:00Z")),
                        against: "TaskStatus", sample: "bare status")
        for (index, change) in Samples.changes.enumerated() {
            let payload = WebhookPayload(change: change, sequence: Int64(index + 1), timestamp: Date(), status: status)
            try check.check(payload.encoded(), against: "WebhookEvent", sample: change.eventName)
        }
        #expect(check.problems.isEmpty, "\(check.problems)")
        for schema in ["TaskStatus", "InputStatus", "OutputStatus", "WebhookEvent"] {
            let unused = check.declaredProperties(of: schema).subtracting(check.used)
            #expect(unused.isEmpty, "declared in openapi.yaml but never written: \(unused.sorted())")
        }
    }

    @Test func taskDocumentMatchesItsCodableType() async throws {
        let check = OpenAPISchemaCheck(document: try await document())
        for (index, document) in Samples.taskDocuments.enumerated() {
            try check.check(JSONEncoder().encode(document), against: "TaskDocument", sample: "document \(index)")
        }
        #expect(check.problems.isEmpty, "\(check.problems)")
        let unused = ["TaskDocument", "Input", "RTPInput", "RTPAllocation", "RTPVideoMedium", "RTPAudioMedium",
                      "Encoder", "VideoEncoder", "AudioEncoder", "Layout", "Region",
                      "AudioMix", "Output", "RTPOutput", "HLSOutput", "SEI", "Rendition"].reduce(into: Set<String>()) { $0.formUnion(check.declaredProperties(of: $1)) }
            .subtracting(check.used)
        #expect(unused.isEmpty, "declared in openapi.yaml but not in TaskDocument: \(unused.sorted())")
    }

    /// Answers of the real routes: the task list, a created task, and error bodies with a path and issues.
    @Test func answersMatchTheirSchemas() async throws {
        let check = OpenAPISchemaCheck(document: try await document())
        let answers: [(body: Data, schema: String, sample: String)] = try await TestServer().app().test(.router) { client in
            let created = try await client.execute(uri: "/v1/tasks", method: .post, headers: jsonHeaders(), body: buffer(taskBody))
            #expect(created.status == .created)
            let list = try await client.execute(uri: "/v1/tasks", method: .get)
            let invalid = try await client.execute(uri: "/v1/tasks", method: .post, headers: jsonHeaders(), body: buffer("{}"))
            #expect(invalid.status == .badRequest && invalid.errorBody?.issues?.count == 2)
            let missing = try await client.execute(uri: "/v1/tasks/nope", method: .get)
            #expect(missing.status == .notFound)
            let sei = try await client.execute(uri: "/v1/tasks/room-1/sei", method: .post, headers: jsonHeaders(),
                                               body: buffer(#"{"payload": "x"}"#))
            #expect(sei.status == .accepted)
            return [(created, "TaskStatus", "POST /v1/tasks"), (list, "TaskList", "GET /v1/tasks"), (invalid, "Error", "400"),
                    (missing, "Error", "404"), (sei, "SEIAccepted", "POST /v1/tasks/{taskId}/sei")].map { (Data($0.0.body.readableBytesView), $0.1, $0.2) }
        }
        for answer in answers { try check.check(answer.body, against: answer.schema, sample: answer.sample) }
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.used.isSuperset(of: ["Error.error.path", "Error.error.issues", "TaskList.tasks", "SEIAccepted.repeat"]),
                "\(check.used)")
    }

    /// A sample that breaks the schema is reported: the check can fail.
    @Test func theCheckFindsUndeclaredAndMissingKeys() async throws {
        let check = OpenAPISchemaCheck(document: try await document())
        try check.check(Data(#"{"taskId": "t", "surprise": 1, "inputs": [{"id": "a", "colour": "red"}]}"#.utf8),
                        against: "TaskStatus", sample: "broken")
        #expect(check.problems.contains("broken: surprise is not declared in TaskStatus"))
        #expect(check.problems.contains("broken.inputs[0]: colour is not declared in InputStatus"))
        #expect(check.problems.contains("broken.inputs[0]: required state missing"))
        #expect(check.problems.contains("broken: required outputs missing"))
    }
}

/// Samples with every optional field set, so an undocumented key cannot hide behind a nil.
enum Samples {
    static var fullStatus: TaskStatus {
        var packets = PacketCounters()
        packets.received = 10
        packets.refused = Dictionary(uniqueKeysWithValues: RTPRefusal.allCases.map { ($0.rawValue, Int64(1)) })
        var input = InputStatus(id: "cam", state: .live, frames: 30, drops: 1, lastError: "late",
                                rtp: RTPStatus(videoPort: 5004, audioPort: 5006, sdp: "v=0"), packets: packets,
                                rotation: 90, flip: true, drawSize: PixelSize(width: 640, height: 360))
        input.audioLevel = 40
        input.speaking = true
        input.ready = true
        input.videoState = .waitingForKeyframe
        input.audioState = .live
        var rtcp = RTCPReceiver.Counters()
        rtcp.pli = 2
        input.rtcp = rtcp
        var output = OutputStatus(url: "rtmp://cdn/live/****", state: .live, bytes: 100, reconnects: 1, lastError: "reset")
        output.files = ["room.mp4"]
        output.failedInputs = ["guest"]
        output.uploads = [Self.upload]
        output.playbackPath = "/v1/tasks/room-1/hls/viewer-key-0123456789/room.m3u8"
        var room = OutputStatus(url: "rtp://127.0.0.1:5004", state: .live, bytes: 100)
        room.sdp = "v=0"
        let sent = RTPSentStreamStatus(ssrc: 1, packets: 10, bytes: 1000, senderReports: 2, receiverReports: 1, pli: 1, fir: 1,
                                       keyframesRequested: 1, nackedPackets: 1, fractionLost: 0.1, cumulativeLost: 2,
                                       jitterMs: 3, rttMs: 4)
        room.rtp = RTPOutputStatus(destination: "127.0.0.1:5004", video: sent, audio: sent, refusedDatagrams: 1, plainFeedback: 1)
        var status = TaskStatus(taskId: "room", state: .running, reason: "because", startedAt: "2026-01-01T00:00:00Z",
                                uptimeSeconds: 1, frames: 30, fps: 30, bitrateKbps: 2500, lateFrames: 0, sequence: 3,
                                inputs: [input], outputs: [output, room])
        status.encodes = ["h264-high", "aac"]
        status.workerPid = 42
        status.workerRestarts = 1
        status.node = "node-a"
        status.cpuSeconds = 12.5
        status.cpuSecondsPerOutputMinute = 7.5
        return status
    }

    static var changes: [WebhookChange] {
        [.task(TaskChange(state: .running, previousState: .starting, reason: "r")),
         .input(InputChange(id: "cam", state: .live, previousState: .waiting, lastError: "e")),
         .inputRTP(InputChange(id: "cam", state: .live, previousState: nil, rtp: RTPStatus(videoPort: 1, audioPort: 2, sdp: "v=0"))),
         .inputDrawSize(InputChange(id: "cam", state: .live, previousState: nil, drawSize: PixelSize(width: 320, height: 180))),
         .output(OutputChange(url: "rtmp://cdn/live/****", state: .live, previousState: .connecting, lastError: "e")),
         .outputUploaded(OutputChange(url: "s3://rec/room.mp4", state: .live, previousState: .live, upload: Self.upload))]
    }

    static let upload = ObjectUploadStatus(file: "s3://rec/room.mp4", state: .uploaded, bytes: 10, waitingBytes: 0, parts: 1,
                                           reason: "r", recovered: true)

    static var taskDocuments: [TaskDocument] {
        var video = VideoEncoderSpec(width: 1280, height: 720, fps: 30, bitrateKbps: 2500, gopSeconds: 2, codec: "h264", preset: "veryfast",
                                     latency: "low", threads: 2)
        video.profile = "baseline"
        video.renditions = [RenditionSpec(width: 640, height: 360, bitrateKbps: 700, fps: 15)]
        var hlsOutput = OutputSpec(url: "show/room.m3u8")
        hlsOutput.paused = false
        hlsOutput.hls = HLSSpec(segmentSeconds: 2, playlist: "live", windowSegments: 6, segmentFormat: "fmp4")
        hlsOutput.thumbnails = ThumbnailSpec(intervalSeconds: 2, width: 320)
        // Low-Latency HLS with a rewind window and its own viewer key (issue 33).
        var lowLatencyOutput = OutputSpec(url: "show/ll.m3u8")
        lowLatencyOutput.hls = HLSSpec(segmentSeconds: 2, lowLatency: HLSLowLatencySpec(partSeconds: 0.333), dvrSeconds: 60,
                                       viewerKey: "viewer-key-0123456789")
        var lowRendition = OutputSpec(url: "rtmp://cdn/live/low")
        lowRendition.rendition = 1
        var room = RTPOutputSpec()
        room.audioPort = 5006
        room.videoRtcpPort = 5005
        room.audioRtcpPort = 5007
        room.videoCodec = "h264"
        room.audioCodec = "opus"
        room.videoPayloadType = 96
        room.audioPayloadType = 111
        room.videoSsrc = 1
        room.audioSsrc = 2
        room.rtcpMux = false
        room.srtp = SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd")
        let encoder = EncoderSpec(video: video, audio: AudioEncoderSpec(sampleRate: 48000, channels: 2, bitrateKbps: 128, codec: "aac"))
        let regions = [
            RegionSpec(input: "cam", units: "pixels", x: 0, y: 0, width: 640, height: 360, zOrder: 1, alpha: 1,
                       renderMode: "crop", backgroundColor: "#000000", placeholderImage: "p.png",
                       sourceCrop: SourceCropSpec(x: 0, y: 0, width: 1, height: 1), cornerRadius: 8, maskImage: "m.png",
                       onVideoLoss: "lastFrame"),
            RegionSpec(image: "logo.png", x: 0, y: 0, width: 10, height: 10),
            RegionSpec(text: "hi", x: 0, y: 0, width: 10, height: 10, fontSize: 20, color: "#FFFFFF", font: "f.ttf", align: "left"),
        ]
        let negotiated = RTPAllocation(
            video: RTPMediumSpec(codec: "H264", payloadType: 99, clockRate: 90000, fmtp: "packetization-mode=1", rtxPayloadType: 100),
            audio: RTPMediumSpec(codec: "opus", payloadType: 96, clockRate: 48000, channels: 2, fmtp: "useinbandfec=1"),
            extensions: ["urn:3gpp:video-orientation": 3], rtcpMux: true,
            srtp: SRTPSpec(suite: "AES_CM_128_HMAC_SHA1_80", key: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd"))
        var cam = InputSpec(id: "cam", url: "a.mp4", loop: true, startAtMs: 0, silenceTimeoutMs: 2000)
        cam.seiPassthrough = false
        var full = TaskDocument(
            taskId: "room", mode: "mix", pace: "realtime", maxDurationSeconds: 60, idleTimeoutSeconds: 30,
            callbackUrl: "http://hooks/x",
            inputs: [cam,
                     InputSpec(id: "sfu", rtp: RTPSpec(sdp: "v=0")),
                     InputSpec(id: "alloc", rtp: RTPSpec(allocate: RTPAllocation(video: "H264", audio: "opus"))),
                     InputSpec(id: "negotiated", rtp: RTPSpec(allocate: negotiated, source: "10.0.0.0/24"))],
            encoder: encoder,
            layout: LayoutSpec(backgroundColor: "#000000", backgroundImage: "bg.png", template: "grid", regions: regions,
                               fill: "present", audioOnlySlots: true, main: "sfu"),
            audio: AudioSpec(inputs: ["cam"], volumes: ["cam": 100]),
            outputs: [OutputSpec(url: "out.mp4"), OutputSpec(url: "rtp://127.0.0.1:5004", rtp: room),
                      hlsOutput, lowLatencyOutput, lowRendition])
        full.sei = SEISpec(volume: VolumeSEISpec(intervalMs: 1000, uuid: "0d6e1a9f3c2b4d8e8f7a6b5c4d3e2f10"), appData: "room")
        // A show's timeline (issue 32): a sequence input with gaps, scheduled updates, notes.
        var guest = InputSpec(id: "guest")
        guest.sequence = [SequenceFileSpec(url: "guest.mkv", startAtMs: 3000)]
        guest.gaps = [GapSpec(fromMs: 5000, toMs: 9000)]
        var timeline = TaskDocument(inputs: [guest], outputs: [OutputSpec(url: "remix.mp4")])
        timeline.updates = [ScheduledUpdateSpec(atMs: 5000, layout: LayoutSpec(template: "grid"), audio: AudioSpec(volumes: ["guest": 1]),
                                                sei: SEISpec(appData: "x"))]
        timeline.timeline = .object(["startedAt": .string("2026-11-28T07:00:00Z")])
        return [full, TaskDocument(inputs: [InputSpec(id: "a", url: "a.mp4")], outputs: [OutputSpec(url: "o.mp4")]), timeline]
    }
}
