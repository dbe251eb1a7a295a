/// Output URLs carry stream keys: logs and status show them with the key, the query and any
/// credentials hidden.
public enum URLRedaction {
    /// `rtmp://user:pw@cdn/live/room42?key=abc` → `rtmp://cdn/live/***`. The last path segment
    /// is taken as the stream key when the path has two or more; file paths and `s3://` objects
    /// (the node holds the store's credentials, the URL none) are returned as given.
    public static func redact(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound]
        guard !["file", "s3"].contains(scheme.lowercased()) else { return url }
        var rest = Substring(url[schemeEnd.upperBound...])
        let hadQuery = rest.contains("?") || rest.contains("#")
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let segments = rest[authorityEnd...].split(separator: "/", omittingEmptySubsequences: true)
        var path = segments.map(String.init)
        if path.count >= 2 || (hadQuery && !path.isEmpty) { path[path.count - 1] = "***" }
        return "\(scheme)://\(authority)" + (path.isEmpty ? "" : "/" + path.joined(separator: "/"))
    }
}
