import Foundation

/// `tessera mix TIMELINE --layout new.json`: a recorded show re-mixed with another layout. The
/// file holds a layout object as it stands under a task's `layout`; it replaces the document's
/// layout and the layout of every scheduled update (audio and SEI updates still apply; an update
/// that only changed the layout goes). Problems in it are named `--layout: regions[1].input`.
public enum LayoutOverride {
    /// What names the layout file in messages.
    public static let label = "--layout"

    /// `document` with `layout` in place of its own and its updates' layouts; the issues of the
    /// layout file when it is not JSON or not an object.
    public static func apply(layout data: Data, to document: Data) -> Result<Data, ValidationFailure> {
        let layout: JSONValue
        do { layout = try JSONValue.parse(data) } catch {
            return .failure(ValidationFailure(issues: [ValidationIssue(path: label, message: error.description)]))
        }
        guard case .object = layout else {
            return .failure(ValidationFailure(issues: [ValidationIssue(path: label, message: "expected a layout object, got \(layout.typeName)")]))
        }
        // A document that is not an object is left to the validator, which names it.
        guard case .object(var fields) = (try? JSONValue.parse(document)) ?? .null else { return .success(document) }
        fields["layout"] = layout
        if case .array(let updates)? = fields["updates"] {
            let kept: [JSONValue] = updates.compactMap { update in
                guard case .object(var entry) = update else { return update }
                entry["layout"] = nil
                return entry.keys.contains(where: { $0 != "atMs" }) ? .object(entry) : nil
            }
            fields["updates"] = .array(kept)
        }
        guard let encoded = try? JSONEncoder().encode(JSONValue.object(fields)) else { return .success(document) }
        return .success(encoded)
    }

    /// Issues of the merged document: those in its `layout` are renamed to the file
    /// (`layout.regions[1].input` → `--layout: regions[1].input`).
    public static func rename(_ issues: [ValidationIssue]) -> [ValidationIssue] {
        issues.map { issue in
            if issue.path == "layout" { return ValidationIssue(path: label, message: issue.message) }
            guard issue.path.hasPrefix("layout.") else { return issue }
            return ValidationIssue(path: label + ": " + issue.path.dropFirst("layout.".count), message: issue.message)
        }
    }
}
