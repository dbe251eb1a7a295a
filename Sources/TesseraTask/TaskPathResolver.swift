import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Classifies the URLs a caller writes and turns file paths into absolute ones, confined to a root
/// when the service asks for it (SPEC §5).
///
/// FFmpeg treats any `name:` (and `name,options:`) prefix as a protocol, so a "path" such as
/// `concat:a|b` or `subfile,,start,0,end,9,,:/etc/passwd` would reach files and hosts the caller
/// should not. Everything before the first `:` that looks like a scheme therefore counts as one,
/// and only the schemes the contract lists get through; every file path handed on is absolute
/// (it starts with `/`), which FFmpeg always opens with its plain `file` protocol.
enum TaskPathResolver {
    /// What a `url` field names.
    enum Location: Equatable {
        /// A file path as written (scheme removed), still relative or absolute.
        case file(String)
        /// A network URL with its lower-cased scheme.
        case network(scheme: String)
        /// A scheme Tessera does not open.
        case refused(scheme: String)
    }

    static let networkSchemes: Set<String> = ["rtmp", "rtmps", "http", "https", "srt"]

    /// The scheme of `url` (lower-cased, without protocol options), or nil for a plain path.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let prefix = url[..<colon]
        guard let first = prefix.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        // FFmpeg's scheme characters plus ',' (its `proto,options:` form).
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.,")
        guard prefix.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        return prefix.split(separator: ",", omittingEmptySubsequences: false)[0].lowercased()
    }

    /// Sorts `url` into a file path, a network URL or a refused scheme; a message when a `file:`
    /// URL is malformed.
    static func classify(_ url: String) -> Result<Location, LocationError> {
        guard let scheme = scheme(of: url) else { return .success(.file(url)) }
        if networkSchemes.contains(scheme) { return .success(.network(scheme: scheme)) }
        guard scheme == "file", url.lowercased().hasPrefix("file:") else { return .success(.refused(scheme: scheme)) }
        var rest = String(url.dropFirst("file:".count))
        if rest.hasPrefix("//") {
            // `file:///abs/path` (RFC 8089): percent-encoded, and no host but our own.
            rest.removeFirst(2)
            if rest.lowercased().hasPrefix("localhost/") { rest.removeFirst("localhost".count) }
            guard rest.hasPrefix("/") else { return .failure(LocationError("a file: URL may not name a host")) }
            guard let decoded = rest.removingPercentEncoding else { return .failure(LocationError("invalid percent-encoding")) }
            rest = decoded
        }
        guard !rest.isEmpty else { return .failure(LocationError("a file: URL needs a path")) }
        return .success(.file(rest))
    }

    struct LocationError: Error, Equatable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    // MARK: - Paths

    /// `path` made absolute against the working directory and standardized.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? standardize(path) : standardize(FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// Removes `.`, `..` and repeated slashes from an absolute path, without touching the disk.
    /// `..` at the root stays at the root, as in POSIX.
    static func standardize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func isWithin(_ path: String, root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }

    /// The absolute path `given` names, relative paths against `root`. With `confine`, the path
    /// must stay under `root` both as written and after symbolic links are followed; the result
    /// is then the link-free path, so what is opened later is what was checked here.
    static func resolve(_ given: String, root: String, confine: Bool) -> Result<String, LocationError> {
        let joined = standardize(given.hasPrefix("/") ? given : root + "/" + given)
        guard confine else { return .success(joined) }
        let realRoot = (try? realPath(ofPossiblyMissing: root)) ?? root
        guard isWithin(joined, root: root) || isWithin(joined, root: realRoot) else {
            return .failure(LocationError("path is outside the allowed directory"))
        }
        let real: String
        do { real = try realPath(ofPossiblyMissing: joined) } catch { return .failure(error) }
        guard isWithin(real, root: realRoot) else {
            return .failure(LocationError("path leads outside the allowed directory through a symbolic link"))
        }
        return .success(real)
    }

    /// The path with every symbolic link resolved: `realpath(3)` of the longest existing prefix,
    /// with the missing rest appended (an output file does not exist yet). A dangling link is an
    /// error because writing through it would create its target wherever that points.
    static func realPath(ofPossiblyMissing path: String) throws(LocationError) -> String {
        var existing = path
        var missing: [String] = []
        while true {
            if let resolved = systemRealPath(existing) {
                return standardize(([resolved] + missing.reversed()).joined(separator: "/"))
            }
            if isSymbolicLink(existing) { throw LocationError("path goes through a dangling symbolic link") }
            guard existing != "/" else { return path }
            let url = URL(fileURLWithPath: existing)
            missing.append(url.lastPathComponent)
            existing = url.deletingLastPathComponent().path
            if existing.isEmpty { existing = "/" }
        }
    }

    private static func systemRealPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFLNK
    }
}
