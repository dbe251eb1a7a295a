/// Reads the fields of one JSON object by name, noting each problem at its path, and afterwards
/// reports every field nobody asked for: a typo such as `widht` must not be silently ignored.
/// `null` counts as absent, since many clients write optional fields that way.
struct JSONObjectReader {
    let path: String
    private let fields: [String: JSONValue]
    private var known: [String] = []

    /// nil (with an issue at `path`) when `value` is not an object.
    init?(_ value: JSONValue, path: String, issues: inout IssueList) {
        guard case .object(let fields) = value else {
            issues.add(path, "expected an object, got \(value.typeName)")
            return nil
        }
        self.path = path
        self.fields = fields
    }

    func path(_ key: String) -> String { FieldPath.member(path, key) }

    /// The raw value of `key`; nil when absent or null (with "required" noted if it must be there).
    mutating func value(_ key: String, required: Bool = false, issues: inout IssueList) -> JSONValue? {
        known.append(key)
        guard let value = fields[key], value != .null else {
            if required { issues.add(path(key), "required") }
            return nil
        }
        return value
    }

    mutating func string(_ key: String, required: Bool = false, issues: inout IssueList) -> String? {
        guard let value = value(key, required: required, issues: &issues) else { return nil }
        return JSONObjectReader.string(value, path: path(key), issues: &issues)
    }

    mutating func double(_ key: String, required: Bool = false, issues: inout IssueList) -> Double? {
        guard let value = value(key, required: required, issues: &issues) else { return nil }
        return JSONObjectReader.double(value, path: path(key), issues: &issues)
    }

    mutating func int(_ key: String, required: Bool = false, issues: inout IssueList) -> Int? {
        guard let value = value(key, required: required, issues: &issues) else { return nil }
        return JSONObjectReader.int(value, path: path(key), issues: &issues)
    }

    mutating func bool(_ key: String, issues: inout IssueList) -> Bool? {
        guard let value = value(key, issues: &issues) else { return nil }
        guard case .bool(let result) = value else {
            issues.add(path(key), "expected a boolean, got \(value.typeName)")
            return nil
        }
        return result
    }

    mutating func object(_ key: String, issues: inout IssueList) -> JSONObjectReader? {
        guard let value = value(key, issues: &issues) else { return nil }
        return JSONObjectReader(value, path: path(key), issues: &issues)
    }

    /// The elements of an array field, each with its path.
    mutating func array(_ key: String, issues: inout IssueList) -> [(path: String, value: JSONValue)]? {
        guard let value = value(key, issues: &issues) else { return nil }
        guard case .array(let elements) = value else {
            issues.add(path(key), "expected an array, got \(value.typeName)")
            return nil
        }
        return elements.enumerated().map { (FieldPath.element(path(key), $0.offset), $0.element) }
    }

    /// Every field of the object, for maps such as `audio.volumes` whose keys are data.
    var entries: [(key: String, value: JSONValue)] {
        fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Notes every field that none of the accessors above asked for, suggesting the nearest
    /// known name when the unknown one looks like a typo of it.
    func reportUnknownFields(issues: inout IssueList) {
        for key in fields.keys.sorted() where !known.contains(key) {
            if let guess = nearest(to: key) {
                issues.add(path(key), "unknown field; did you mean \"\(guess)\"?")
            } else {
                issues.add(path(key), "unknown field")
            }
        }
    }

    private func nearest(to key: String) -> String? {
        let scored = known.map { ($0, editDistance($0.lowercased(), key.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= (key.count <= 3 ? 1 : 2) else { return nil }
        return best.0
    }

    // MARK: - Scalar conversions

    static func string(_ value: JSONValue, path: String, issues: inout IssueList) -> String? {
        guard case .string(let result) = value else {
            issues.add(path, "expected a string, got \(value.typeName)")
            return nil
        }
        return result
    }

    static func double(_ value: JSONValue, path: String, issues: inout IssueList) -> Double? {
        guard case .number(let result) = value else {
            issues.add(path, "expected a number, got \(value.typeName)")
            return nil
        }
        return result
    }

    /// An integer: a JSON number with no fractional part that a Double holds exactly (|n| ≤ 2^53).
    static func int(_ value: JSONValue, path: String, issues: inout IssueList) -> Int? {
        guard case .number(let number) = value, number.rounded() == number, abs(number) <= 9_007_199_254_740_992 else {
            issues.add(path, "expected an integer, got \(value == .null ? "null" : describe(value))")
            return nil
        }
        return Int(number)
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .number(let number) = value { return "\(number)" }
        return value.typeName
    }
}

/// Levenshtein distance, for "did you mean" suggestions on short field names.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
