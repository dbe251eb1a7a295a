import Foundation

/// Reads a task document from JSON by hand, reporting every wrong type, missing required field and
/// unknown field with its path (`inputs[1].loop: expected a boolean, got a string`), where
/// `JSONDecoder` would stop at the first.
public enum TaskDocumentReader {
    /// The document, or nil with every issue found. A document comes back only when there is no
    /// issue at all, so callers cannot run a half-read task by accident.
    public static func read(_ data: Data) -> (document: TaskDocument?, issues: [ValidationIssue]) {
        let result = readBestEffort(data)
        return (result.issues.isEmpty ? result.document : nil, result.issues)
    }

    /// Like `read(_:)` for an already parsed value.
    public static func read(_ value: JSONValue) -> (document: TaskDocument?, issues: [ValidationIssue]) {
        let result = readBestEffort(value)
        return (result.issues.isEmpty ? result.document : nil, result.issues)
    }

    /// A document even when some fields were wrong (nil only for text that is not a JSON object):
    /// a wrongly typed field reads as absent, a missing required one as empty / zero, and an array
    /// element that is not an object as an empty entry, so indices stay true. `TaskValidator` uses
    /// it to report the validation problems of the readable rest in the same run.
    public static func readBestEffort(_ data: Data) -> (document: TaskDocument?, issues: [ValidationIssue]) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            return (nil, [ValidationIssue(path: "", message: error.description)])
        }
        return readBestEffort(value)
    }

    /// `readBestEffort(_:)` for an already parsed value.
    public static func readBestEffort(_ value: JSONValue) -> (document: TaskDocument?, issues: [ValidationIssue]) {
        var issues = IssueList()
        guard case .object = value else {
            return (nil, [ValidationIssue(path: "", message: "expected a JSON object (the task document), got \(value.typeName)")])
        }
        guard var root = JSONObjectReader(value, path: "", issues: &issues) else { return (nil, issues.items) }
        var document = TaskDocument()
        document.taskId = root.string("taskId", issues: &issues)
        document.mode = root.string("mode", issues: &issues)
        document.pace = root.string("pace", issues: &issues)
        document.maxDurationSeconds = root.double("maxDurationSeconds", issues: &issues)
        document.idleTimeoutSeconds = root.double("idleTimeoutSeconds", issues: &issues)
        document.callbackUrl = root.string("callbackUrl", issues: &issues)
        if let elements = root.array("inputs", issues: &issues) {
            document.inputs = elements.map { readInput($0.value, path: $0.path, issues: &issues) }
        }
        if let encoder = root.object("encoder", issues: &issues) {
            document.encoder = readEncoder(encoder, issues: &issues)
        }
        if let layout = root.value("layout", issues: &issues) {
            document.layout = readLayout(layout, path: "layout", issues: &issues)
        }
        if let audio = root.value("audio", issues: &issues) {
            document.audio = readAudio(audio, path: "audio", issues: &issues)
        }
        if let elements = root.array("outputs", issues: &issues) {
            document.outputs = elements.map { readOutput($0.value, path: $0.path, issues: &issues) }
        }
        if let sei = root.object("sei", issues: &issues) {
            document.sei = readSEI(sei, issues: &issues)
        }
        readTimelineFields(&root, into: &document, issues: &issues)
        root.reportUnknownFields(issues: &issues)
        return (document, issues.items)
    }

    // MARK: - Sections (also what an update body is made of)

    /// Reads one `inputs[]` entry at `path`.
    static func readInput(_ value: JSONValue, path: String, issues: inout IssueList) -> InputSpec {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return InputSpec(id: "") }
        var input = InputSpec(id: object.string("id", required: true, issues: &issues) ?? "")
        input.url = object.string("url", issues: &issues)
        if let rtp = object.object("rtp", issues: &issues) {
            input.rtp = readRTP(rtp, issues: &issues)
        }
        input.loop = object.bool("loop", issues: &issues)
        input.startAtMs = object.int("startAtMs", issues: &issues)
        input.silenceTimeoutMs = object.int("silenceTimeoutMs", issues: &issues)
        input.seiPassthrough = object.bool("seiPassthrough", issues: &issues)
        readTimelineFields(&object, into: &input, issues: &issues)
        object.reportUnknownFields(issues: &issues)
        return input
    }

    private static func readEncoder(_ encoder: JSONObjectReader, issues: inout IssueList) -> EncoderSpec {
        var encoder = encoder
        var spec = EncoderSpec()
        if var video = encoder.object("video", issues: &issues) {
            var settings = VideoEncoderSpec(width: video.int("width", required: true, issues: &issues) ?? 0,
                                            height: video.int("height", required: true, issues: &issues) ?? 0)
            settings.fps = video.int("fps", issues: &issues)
            settings.bitrateKbps = video.int("bitrateKbps", issues: &issues)
            settings.gopSeconds = video.double("gopSeconds", issues: &issues)
            settings.codec = video.string("codec", issues: &issues)
            settings.preset = video.string("preset", issues: &issues)
            settings.latency = video.string("latency", issues: &issues)
            settings.threads = video.int("threads", issues: &issues)
            settings.profile = video.string("profile", issues: &issues)
            if let elements = video.array("renditions", issues: &issues) {
                settings.renditions = elements.map { readRendition($0.value, path: $0.path, issues: &issues) }
            }
            video.reportUnknownFields(issues: &issues)
            spec.video = settings
        }
        if var audio = encoder.object("audio", issues: &issues) {
            spec.audio = AudioEncoderSpec(sampleRate: audio.int("sampleRate", issues: &issues),
                                          channels: audio.int("channels", issues: &issues),
                                          bitrateKbps: audio.int("bitrateKbps", issues: &issues),
                                          codec: audio.string("codec", issues: &issues))
            audio.reportUnknownFields(issues: &issues)
        }
        encoder.reportUnknownFields(issues: &issues)
        return spec
    }

    /// Reads one `encoder.video.renditions[]` entry at `path`.
    private static func readRendition(_ value: JSONValue, path: String, issues: inout IssueList) -> RenditionSpec {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else {
            return RenditionSpec(width: 0, height: 0, bitrateKbps: 0)
        }
        let rendition = RenditionSpec(width: object.int("width", required: true, issues: &issues) ?? 0,
                                      height: object.int("height", required: true, issues: &issues) ?? 0,
                                      bitrateKbps: object.int("bitrateKbps", required: true, issues: &issues) ?? 0,
                                      fps: object.int("fps", issues: &issues))
        object.reportUnknownFields(issues: &issues)
        return rendition
    }

    /// Reads one `outputs[]` entry at `path`.
    static func readOutput(_ value: JSONValue, path: String, issues: inout IssueList) -> OutputSpec {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return OutputSpec(url: "") }
        var output = OutputSpec(url: object.string("url", required: true, issues: &issues) ?? "")
        if let rtp = object.object("rtp", issues: &issues) { output.rtp = readRTPOutput(rtp, issues: &issues) }
        output.paused = object.bool("paused", issues: &issues)
        output.rendition = object.int("rendition", issues: &issues)
        if let thumbnails = object.object("thumbnails", issues: &issues) { output.thumbnails = readThumbnails(thumbnails, issues: &issues) }
        if var hls = object.object("hls", issues: &issues) {
            output.hls = HLSSpec(segmentSeconds: hls.double("segmentSeconds", issues: &issues),
                                 playlist: hls.string("playlist", issues: &issues),
                                 windowSegments: hls.int("windowSegments", issues: &issues),
                                 segmentFormat: hls.string("segmentFormat", issues: &issues),
                                 dvrSeconds: hls.double("dvrSeconds", issues: &issues),
                                 viewerKey: hls.string("viewerKey", issues: &issues))
            if var low = hls.object("lowLatency", issues: &issues) {
                output.hls?.lowLatency = HLSLowLatencySpec(partSeconds: low.double("partSeconds", issues: &issues))
                low.reportUnknownFields(issues: &issues)
            }
            hls.reportUnknownFields(issues: &issues)
        }
        object.reportUnknownFields(issues: &issues)
        return output
    }
}
