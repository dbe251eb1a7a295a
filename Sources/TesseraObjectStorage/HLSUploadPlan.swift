import Foundation

/// What an HLS output sends to the store after FFmpeg rewrote its playlist: the init segment and
/// the media segments it lists that have not gone up yet, then the playlist itself, so a player
/// never reads a playlist naming a segment that is not there. A `live` playlist's segments that
/// left the window are deleted from the store. Pure: the caller reads the playlist and sends.
public struct HLSUploadPlan: Sendable, Equatable {
    /// Files to PUT before the playlist, in order (names relative to the playlist's folder).
    public var segments: [String]
    /// Files sent earlier that the playlist no longer lists (a `live` window moved on).
    public var expired: [String]

    /// - `uploaded`: names already in the store (the init segment included).
    public static func plan(playlist: String, uploaded: Set<String>) -> HLSUploadPlan {
        let listed = files(in: playlist)
        return HLSUploadPlan(segments: listed.filter { !uploaded.contains($0) },
                             expired: uploaded.filter { !listed.contains($0) }.sorted())
    }

    /// The playlist's init segment (`#EXT-X-MAP:URI="…"`) and media segments, in order.
    public static func files(in playlist: String) -> [String] {
        var names: [String] = []
        for line in playlist.split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("#EXT-X-MAP:"), let start = text.range(of: "URI=\"") {
                let rest = text[start.upperBound...]
                if let end = rest.firstIndex(of: "\"") { names.append(String(rest[..<end])) }
            } else if !text.isEmpty, !text.hasPrefix("#") {
                names.append(text)
            }
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Whether the playlist is final (`#EXT-X-ENDLIST`).
    public static func isComplete(_ playlist: String) -> Bool { playlist.contains("#EXT-X-ENDLIST") }
}
