import TesseraTask

/// Which object keys are files of a per-participant output (`room42/{input}.webm`): the key of any
/// input (`room42/host.webm`) and of its rejoins' and restarts' later files (`room42/host.1.webm`,
/// `RecordingFileNames`). A dead worker's open uploads are found by this, since the inputs it had
/// (a `PATCH` may have added some) are not known to the worker that recovers them. Pure.
public struct PerInputKeyPattern: Sendable, Equatable {
    public let template: String
    /// The key up to the first `{input}`: the prefix to list the store's uploads with.
    public let prefix: String

    public init(template: String) {
        self.template = template
        prefix = template.range(of: PerInputRecording.placeholder).map { String(template[..<$0.lowerBound]) } ?? template
    }

    /// The input and file index `key` is of, or nil when it is no file of this output. An id
    /// holding a dot is ambiguous with an index (`host.1.webm`: `host`'s second file, or input
    /// `host.1`'s first): the shortest id is taken — either way the key is the output's.
    public func match(_ key: String) -> (input: String, index: Int)? {
        guard PerInputRecording.isTemplate(template), key.hasPrefix(prefix) else { return nil }
        let rest = key.dropFirst(prefix.count)
        var end = rest.startIndex
        while end < rest.endIndex {
            end = rest.index(after: end)
            let input = String(rest[rest.startIndex..<end])
            // An input id names a file, never a folder (`TaskValidator.isValidTaskId`).
            if input.contains("/") { return nil }
            let first = PerInputRecording.fill(template, input: input)
            if key == first { return (input, 0) }
            if let index = Self.index(of: key, first: first) { return (input, index) }
        }
        return nil
    }

    /// `files` (paths or `s3://` URLs, as the status lists them) by the per-participant output
    /// whose template (`templates`: output URL → its files' template in the same form) each is
    /// of, in their order; a file of none is left out.
    public static func byOutput(_ files: [String], templates: [(url: String, template: String)]) -> [String: [String]] {
        let patterns = templates.map { ($0.url, PerInputKeyPattern(template: $0.template)) }
        var out: [String: [String]] = [:]
        for file in files {
            guard let (url, _) = patterns.first(where: { $0.1.match(file) != nil }) else { continue }
            if out[url]?.contains(file) != true { out[url, default: []].append(file) }
        }
        return out
    }

    /// `n` when `key` is `RecordingFileNames.name(first, index: n)`, n ≥ 1: the index goes before
    /// the file name's last extension (`room42/host` + `.1` + `.webm`), or at the end without one.
    static func index(of key: String, first: String) -> Int? {
        let fileStart = first.lastIndex(of: "/").map { first.index(after: $0) } ?? first.startIndex
        let name = first[fileStart...]
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 } ?? first.endIndex
        let stem = first[..<dot], suffix = first[dot...]
        guard key.count > stem.count + 1 + suffix.count, key.hasPrefix(stem + "."), key.hasSuffix(suffix) else { return nil }
        let digits = key.dropFirst(stem.count + 1).dropLast(suffix.count)
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0", let index = Int(digits) else { return nil }
        // The name built back must be the key (guards odd cases such as a dot in the folder).
        return RecordingFileNames.name(first, index: index) == key ? index : nil
    }
}

/// What a dead worker's open upload still needs, from what the store holds and what its spool
/// file on this node holds. Pure.
public enum AbandonedUploadPlan: Equatable, Sendable {
    /// No part and no spool bytes: nothing recorded; the upload is aborted.
    case abort
    /// Complete from the parts in the store, after sending `tail` (the spool's bytes after the
    /// last part, up to its last boundary) as one more part when there is one.
    case complete(tail: Range<Int64>?)

    /// - `parts`: (number, size) as the store lists them; `boundary`: the spool file's last cut
    ///   point (`FragmentBoundaries.latest`, nil without a spool file). The parts must be 1…n in
    ///   order (the uploader sends them so), the stored bytes the spool's first ones; otherwise
    ///   the spool is not trusted and only the parts count.
    public static func plan(parts: [(number: Int, size: Int64)], boundary: Int64?) -> AbandonedUploadPlan {
        let inOrder = parts.enumerated().allSatisfy { $0.offset + 1 == $0.element.number }
        let stored = parts.reduce(Int64(0)) { $0 + $1.size }
        // Every part the uploader sends before the last is at least S3's minimum; a shorter one
        // was its last (the upload was being completed): nothing may follow it.
        let lastWasFinal = parts.last.map { $0.size < PartCutter.minimumPartBytes } ?? false
        let tail: Range<Int64>? = if inOrder, !lastWasFinal, let boundary, boundary > stored { stored..<boundary } else { nil }
        if parts.isEmpty && tail == nil { return .abort }
        return .complete(tail: tail)
    }
}
