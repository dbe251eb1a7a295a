/// Reading the fields that replay a recorded show: `inputs[].sequence`, `inputs[].gaps`,
/// top-level `updates` and `timeline`.
extension TaskDocumentReader {
    /// `updates` and `timeline` of the root object.
    static func readTimelineFields(_ root: inout JSONObjectReader, into document: inout TaskDocument, issues: inout IssueList) {
        if let elements = root.array("updates", issues: &issues) {
            document.updates = elements.map { readScheduledUpdate($0.value, path: $0.path, issues: &issues) }
        }
        if let timeline = root.value("timeline", issues: &issues) {
            if case .object = timeline { document.timeline = timeline } else {
                issues.add(root.path("timeline"), "expected an object, got \(timeline.typeName)")
            }
        }
    }

    /// `sequence` and `gaps` of one `inputs[]` entry.
    static func readTimelineFields(_ object: inout JSONObjectReader, into input: inout InputSpec, issues: inout IssueList) {
        if let elements = object.array("sequence", issues: &issues) {
            input.sequence = elements.map { element in
                guard var file = JSONObjectReader(element.value, path: element.path, issues: &issues) else {
                    return SequenceFileSpec(url: "", startAtMs: 0)
                }
                let spec = SequenceFileSpec(url: file.string("url", required: true, issues: &issues) ?? "",
                                            startAtMs: file.int("startAtMs", required: true, issues: &issues) ?? 0)
                file.reportUnknownFields(issues: &issues)
                return spec
            }
        }
        if let elements = object.array("gaps", issues: &issues) {
            input.gaps = elements.map { element in
                guard var gap = JSONObjectReader(element.value, path: element.path, issues: &issues) else {
                    return GapSpec(fromMs: 0, toMs: 0)
                }
                let spec = GapSpec(fromMs: gap.int("fromMs", required: true, issues: &issues) ?? 0,
                                   toMs: gap.int("toMs", required: true, issues: &issues) ?? 0)
                gap.reportUnknownFields(issues: &issues)
                return spec
            }
        }
    }

    /// One `updates[]` entry: `atMs` and the sections it replaces, read as an update's are.
    private static func readScheduledUpdate(_ value: JSONValue, path: String, issues: inout IssueList) -> ScheduledUpdateSpec {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return ScheduledUpdateSpec(atMs: 0) }
        var update = ScheduledUpdateSpec(atMs: object.int("atMs", required: true, issues: &issues) ?? 0)
        if let layout = object.value("layout", issues: &issues) {
            update.layout = readLayout(layout, path: object.path("layout"), issues: &issues)
        }
        if let audio = object.value("audio", issues: &issues) {
            update.audio = readAudio(audio, path: object.path("audio"), issues: &issues)
        }
        if let sei = object.object("sei", issues: &issues) {
            update.sei = readSEI(sei, issues: &issues)
        }
        object.reportUnknownFields(issues: &issues)
        return update
    }
}
