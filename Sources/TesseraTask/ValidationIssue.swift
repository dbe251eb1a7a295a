/// One problem in a task document, at the field it concerns.
///
/// `path` uses the document's own spelling: `layout.regions[2].width`, `inputs[1].url`,
/// `audio.volumes.guest`; the empty path means the document as a whole (e.g. malformed JSON).
public struct ValidationIssue: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }

    /// `path: message`, or just the message for the whole document.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Every problem found in a task document; a document with any issue is refused whole.
public struct ValidationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var issues: [ValidationIssue]
    public init(issues: [ValidationIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// Collects issues while a reader or validator walks a document.
struct IssueList {
    private(set) var items: [ValidationIssue] = []
    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    mutating func add(_ path: String, _ message: String) {
        items.append(ValidationIssue(path: path, message: message))
    }

    mutating func append(contentsOf other: [ValidationIssue]) { items.append(contentsOf: other) }
}

/// Builds field paths in the document's spelling.
enum FieldPath {
    /// `base.key`, or `key` at the top level.
    static func member(_ base: String, _ key: String) -> String { base.isEmpty ? key : base + "." + key }
    /// `base[index]`.
    static func element(_ base: String, _ index: Int) -> String { base + "[\(index)]" }

    /// Whether `path` is `base` itself or a field inside it (`base.x`, `base[3]`).
    static func isWithin(_ path: String, _ base: String) -> Bool {
        if base.isEmpty || path == base { return true }
        guard path.hasPrefix(base) else { return false }
        let next = path[path.index(path.startIndex, offsetBy: base.count)]
        return next == "." || next == "["
    }
}
