/// Public readers for the sections an update (`PATCH /v1/tasks/{id}`) may carry, with the same
/// field-path issues as a whole document. An update is then checked by applying it to the task's
/// `TaskDocument` and validating that whole (keep the resolved `taskId` in it, or a new one would
/// be generated).
extension TaskDocumentReader {
    /// Reads a `layout` object; nil layout when it is not an object.
    public static func readLayout(_ value: JSONValue, path: String = "layout") -> (layout: LayoutSpec?, issues: [ValidationIssue]) {
        var issues = IssueList()
        let layout = readLayout(value, path: path, issues: &issues)
        return (issues.isEmpty ? layout : nil, issues.items)
    }

    /// Reads an `audio` object.
    public static func readAudio(_ value: JSONValue, path: String = "audio") -> (audio: AudioSpec?, issues: [ValidationIssue]) {
        var issues = IssueList()
        let audio = readAudio(value, path: path, issues: &issues)
        return (issues.isEmpty ? audio : nil, issues.items)
    }

    /// Reads an `inputs` array.
    public static func readInputs(_ value: JSONValue, path: String = "inputs") -> (inputs: [InputSpec]?, issues: [ValidationIssue]) {
        var issues = IssueList()
        guard case .array(let elements) = value else {
            return (nil, [ValidationIssue(path: path, message: "expected an array, got \(value.typeName)")])
        }
        let inputs = elements.enumerated().map { readInput($0.element, path: FieldPath.element(path, $0.offset), issues: &issues) }
        return (issues.isEmpty ? inputs : nil, issues.items)
    }

    /// Reads an `outputs` array.
    public static func readOutputs(_ value: JSONValue, path: String = "outputs") -> (outputs: [OutputSpec]?, issues: [ValidationIssue]) {
        var issues = IssueList()
        guard case .array(let elements) = value else {
            return (nil, [ValidationIssue(path: path, message: "expected an array, got \(value.typeName)")])
        }
        let outputs = elements.enumerated().map { readOutput($0.element, path: FieldPath.element(path, $0.offset), issues: &issues) }
        return (issues.isEmpty ? outputs : nil, issues.items)
    }
}
