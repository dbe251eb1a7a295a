/// Where an `s3://BUCKET/KEY` output goes in the node's object store, and where its spool is:
/// the output is written to `spoolDirectory + KEY` (a restarted task's `room42.1.mp4` beside
/// it) and uploaded from there, so the object's key is always the spool path after
/// `spoolDirectory`.
public struct ObjectLocation: Codable, Sendable, Equatable {
    public var bucket: String
    /// The key the document named (a restart's later files get `.1`, `.2`, … before the extension).
    public var key: String
    /// Absolute folder, ending in `/`, that holds this bucket's spool files.
    public var spoolDirectory: String

    public init(bucket: String, key: String, spoolDirectory: String) {
        self.bucket = bucket; self.key = key; self.spoolDirectory = spoolDirectory
    }

    /// The spool file of `key`.
    public var spoolPath: String { spoolDirectory + key }

    /// The key of a spool file of this output (the path after `spoolDirectory`).
    public func key(ofSpoolPath path: String) -> String {
        path.hasPrefix(spoolDirectory) ? String(path.dropFirst(spoolDirectory.count)) : key
    }

    /// Splits `s3://BUCKET/KEY`; a message saying what is wrong otherwise.
    public static func parse(_ url: String) -> Result<(bucket: String, key: String), ObjectLocationError> {
        guard url.lowercased().hasPrefix("s3://") else { return .failure(.init("expected s3://BUCKET/KEY")) }
        let rest = url.dropFirst(5)
        guard let slash = rest.firstIndex(of: "/") else { return .failure(.init("expected s3://BUCKET/KEY: no key after the bucket")) }
        let bucket = String(rest[..<slash])
        let key = String(rest[rest.index(after: slash)...])
        if let problem = bucketProblem(bucket) { return .failure(.init("bucket \"\(bucket)\": \(problem)")) }
        if key.isEmpty || key.hasSuffix("/") { return .failure(.init("expected s3://BUCKET/KEY: the key names no object")) }
        if key.contains("?") || key.contains("#") { return .failure(.init("an object key takes no query or fragment")) }
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return .failure(.init("the key may not have empty, . or .. segments (it also names the spool file)"))
        }
        if key.utf8.count > 1000 { return .failure(.init("the key is longer than 1,000 bytes")) }
        return .success((bucket, key))
    }

    /// S3's bucket naming rules: 3–63 lower-case letters, digits, dots and hyphens, starting and
    /// ending with a letter or digit.
    static func bucketProblem(_ name: String) -> String? {
        guard (3...63).contains(name.count) else { return "a bucket name has 3 to 63 characters" }
        let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard allowed else { return "a bucket name has only lower-case letters, digits, dots and hyphens" }
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
              first != "." && first != "-" && last != "." && last != "-" else {
            return "a bucket name starts and ends with a letter or digit"
        }
        return nil
    }
}

public struct ObjectLocationError: Error, Equatable, Sendable {
    public var message: String
    init(_ message: String) { self.message = message }
}
