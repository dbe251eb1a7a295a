/// The `layout` and `audio` sections: the parts an update may replace.
extension TaskDocumentReader {
    /// Reads a `layout` object at `path`; nil when it is not an object.
    static func readLayout(_ value: JSONValue, path: String, issues: inout IssueList) -> LayoutSpec? {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return nil }
        var layout = LayoutSpec()
        layout.backgroundColor = object.string("backgroundColor", issues: &issues)
        layout.backgroundImage = object.string("backgroundImage", issues: &issues)
        layout.template = object.string("template", issues: &issues)
        if let elements = object.array("regions", issues: &issues) {
            layout.regions = elements.map { readRegion($0.value, path: $0.path, issues: &issues) }
        }
        layout.fill = object.string("fill", issues: &issues)
        layout.audioOnlySlots = object.bool("audioOnlySlots", issues: &issues)
        layout.main = object.string("main", issues: &issues)
        object.reportUnknownFields(issues: &issues)
        return layout
    }

    /// Reads one `layout.regions[]` entry; a missing coordinate reads as 0 (reported as required).
    static func readRegion(_ value: JSONValue, path: String, issues: inout IssueList) -> RegionSpec {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else {
            return RegionSpec(x: 0, y: 0, width: 0, height: 0)
        }
        var region = RegionSpec(
            input: object.string("input", issues: &issues),
            image: object.string("image", issues: &issues),
            text: object.string("text", issues: &issues),
            units: object.string("units", issues: &issues),
            x: object.double("x", required: true, issues: &issues) ?? 0,
            y: object.double("y", required: true, issues: &issues) ?? 0,
            width: object.double("width", required: true, issues: &issues) ?? 0,
            height: object.double("height", required: true, issues: &issues) ?? 0)
        region.zOrder = object.int("zOrder", issues: &issues)
        region.alpha = object.double("alpha", issues: &issues)
        region.renderMode = object.string("renderMode", issues: &issues)
        region.backgroundColor = object.string("backgroundColor", issues: &issues)
        region.placeholderImage = object.string("placeholderImage", issues: &issues)
        region.fontSize = object.double("fontSize", issues: &issues)
        region.color = object.string("color", issues: &issues)
        region.font = object.string("font", issues: &issues)
        region.align = object.string("align", issues: &issues)
        if var crop = object.object("sourceCrop", issues: &issues) {
            region.sourceCrop = SourceCropSpec(x: crop.double("x", required: true, issues: &issues),
                                               y: crop.double("y", required: true, issues: &issues),
                                               width: crop.double("width", required: true, issues: &issues),
                                               height: crop.double("height", required: true, issues: &issues))
            crop.reportUnknownFields(issues: &issues)
        }
        region.cornerRadius = object.double("cornerRadius", issues: &issues)
        region.maskImage = object.string("maskImage", issues: &issues)
        region.onVideoLoss = object.string("onVideoLoss", issues: &issues)
        object.reportUnknownFields(issues: &issues)
        return region
    }

    /// Reads an `audio` object at `path`; nil when it is not an object.
    static func readAudio(_ value: JSONValue, path: String, issues: inout IssueList) -> AudioSpec? {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return nil }
        var audio = AudioSpec()
        if let elements = object.array("inputs", issues: &issues) {
            // A non-string entry reads as "" so later entries keep their indices.
            audio.inputs = elements.map { JSONObjectReader.string($0.value, path: $0.path, issues: &issues) ?? "" }
        }
        if let volumes = object.object("volumes", issues: &issues) {
            var result: [String: Double] = [:]
            for (key, value) in volumes.entries {
                if let volume = JSONObjectReader.double(value, path: volumes.path(key), issues: &issues) {
                    result[key] = volume
                }
            }
            audio.volumes = result
        }
        object.reportUnknownFields(issues: &issues)
        return audio
    }
}
