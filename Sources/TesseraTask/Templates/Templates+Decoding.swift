import Foundation
import TesseraComposition

extension TemplateLibrary {
    /// Reads one template file, checking it as strictly as a task document (unknown fields,
    /// wrong types, sizes ≤ 0, two variants with the same slot count).
    /// - Parameter name: the file's name without `.json`; the template's `name` must match it.
    public static func decode(_ data: Data, name: String) -> Result<LayoutTemplate, ValidationFailure> {
        var issues = IssueList()
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch {
            return .failure(ValidationFailure(issues: [ValidationIssue(path: "", message: error.description)]))
        }
        guard var root = JSONObjectReader(value, path: "", issues: &issues) else {
            return .failure(ValidationFailure(issues: issues.items))
        }
        let declaredName = root.string("name", required: true, issues: &issues)
        if let declaredName, declaredName != name {
            issues.add("name", "is \"\(declaredName)\" but the file is \(name).json")
        }
        let description = root.string("description", issues: &issues) ?? ""
        var variants: [TemplateVariant] = []
        if let elements = root.array("variants", issues: &issues) {
            if elements.isEmpty { issues.add("variants", "at least one variant is required") }
            var seenCounts: [Int: String] = [:]
            for element in elements {
                guard let variant = readVariant(element.value, path: element.path, issues: &issues) else { continue }
                if let earlier = seenCounts[variant.slots.count] {
                    issues.add(element.path, "has as many slots as \(earlier); the smaller one would never be used")
                }
                seenCounts[variant.slots.count] = element.path
                variants.append(variant)
            }
        } else if root.value("variants", issues: &issues) == nil {
            issues.add("variants", "required")
        }
        root.reportUnknownFields(issues: &issues)
        guard issues.isEmpty else { return .failure(ValidationFailure(issues: issues.items)) }
        return .success(LayoutTemplate(name: name, description: description, variants: variants))
    }

    private static func readVariant(_ value: JSONValue, path: String, issues: inout IssueList) -> TemplateVariant? {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return nil }
        var slots: [TemplateSlot] = []
        if let elements = object.array("slots", issues: &issues) {
            if elements.isEmpty { issues.add(object.path("slots"), "at least one slot is required") }
            slots = elements.compactMap { readSlot($0.value, path: $0.path, issues: &issues) }
        } else {
            issues.add(object.path("slots"), "required")
        }
        object.reportUnknownFields(issues: &issues)
        return TemplateVariant(slots: slots)
    }

    private static func readSlot(_ value: JSONValue, path: String, issues: inout IssueList) -> TemplateSlot? {
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return nil }
        let x = object.double("x", required: true, issues: &issues)
        let y = object.double("y", required: true, issues: &issues)
        let width = object.double("width", required: true, issues: &issues)
        let height = object.double("height", required: true, issues: &issues)
        let zOrder = object.int("zOrder", issues: &issues) ?? 0
        var renderMode = RenderMode.crop
        if let mode = object.string("renderMode", issues: &issues) {
            if let parsed = RenderMode(rawValue: mode) { renderMode = parsed } else {
                issues.add(object.path("renderMode"), "expected crop, fit or stretch")
            }
        }
        var backgroundColor: YUVColor?
        if let hex = object.string("backgroundColor", issues: &issues) {
            backgroundColor = YUVColor(hex: hex)
            if backgroundColor == nil { issues.add(object.path("backgroundColor"), "expected #RRGGBB or #RRGGBBAA") }
        }
        object.reportUnknownFields(issues: &issues)
        for (key, size) in [("width", width), ("height", height)] where (size ?? 1) <= 0 {
            issues.add(object.path(key), "must be greater than 0")
        }
        guard let x, let y, let width, let height else { return nil }
        return TemplateSlot(x: x, y: y, width: width, height: height, zOrder: zOrder,
                            renderMode: renderMode, backgroundColor: backgroundColor)
    }
}
