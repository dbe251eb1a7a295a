import Foundation

/// Which files of an HLS output the origin serves, and how: a name the output wrote (its stem
/// `room`, then `.m3u8` or `_…`), in its playlist's folder, of a kind a player reads. Anything
/// else is the same 404 as a wrong viewer key. Pure.
public struct HLSOriginFile: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A media playlist or the multivariant one: answered fresh (blocking reloads apply).
        case playlist
        /// Written once, never changed (segments, parts, initialization sections, numbered
        /// thumbnails): cached for good.
        case immutable
        /// Rewritten while the task runs (the latest thumbnail, sprite sheets being filled, the
        /// thumbnails' WebVTT track): cached for a second.
        case changing
    }

    public var name: String
    public var kind: Kind
    public var contentType: String
    /// For a part (`room_00012.3.m4s`) or a segment (`room_00012.m4s`, part nil) of an LL-HLS
    /// output: its place in the playlist, so a hinted part not written yet can be waited for.
    public var position: (msn: Int, part: Int?)? {
        guard kind == .immutable, let dot = name.lastIndex(of: ".") else { return nil }
        let base = name[..<dot]
        guard let underscore = base.lastIndex(of: "_") else { return nil }
        let numbers = base[base.index(after: underscore)...].split(separator: ".", omittingEmptySubsequences: false)
        guard let first = numbers.first, !first.isEmpty, first.allSatisfy(\.isASCII), let msn = Int(first) else { return nil }
        if numbers.count == 1 { return (msn, nil) }
        guard numbers.count == 2, !numbers[1].isEmpty, let part = Int(numbers[1]) else { return nil }
        return (msn, part)
    }

    /// The media playlist a part or segment belongs to (`room_r1_00012.3.m4s` → `room_r1.m3u8`).
    public var mediaPlaylistName: String? {
        guard position != nil, let dot = name.lastIndex(of: "."), let underscore = name[..<dot].lastIndex(of: "_") else { return nil }
        return String(name[..<underscore]) + ".m3u8"
    }

    public static func == (lhs: HLSOriginFile, rhs: HLSOriginFile) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.contentType == rhs.contentType
    }

    /// The file `name` of the output whose playlist is `playlistName` (`room.m3u8`), or nil when
    /// the origin does not serve it: a path (no `/`, `\`, NUL, `%`), a hidden file, a name
    /// another output or the task's own files could have (it must be the playlist, or start with
    /// its stem and `_`), an extension no player reads.
    public static func classify(_ name: String, playlistName: String) -> HLSOriginFile? {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("."),
              !name.contains(where: { "/\\%\0".contains($0) || $0.isNewline }) else { return nil }
        let stem = Self.stem(of: playlistName)
        guard !stem.isEmpty, name == playlistName || name.hasPrefix(stem + "_") else { return nil }
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        guard let contentType = contentTypes[suffix] else { return nil }
        let kind: Kind
        if suffix == "m3u8" {
            kind = .playlist
        } else if suffix == "vtt" || name.hasPrefix(stem + "_thumb_latest.") || name.hasPrefix(stem + "_sprite_") {
            kind = .changing
        } else {
            kind = .immutable
        }
        return HLSOriginFile(name: name, kind: kind, contentType: contentType)
    }

    /// `room.m3u8` → `room`.
    public static func stem(of playlistName: String) -> String {
        guard let range = playlistName.range(of: ".m3u8", options: [.caseInsensitive, .backwards, .anchored]) else { return playlistName }
        return String(playlistName[..<range.lowerBound])
    }

    /// The delta form of a playlist (`room.m3u8` → `room_delta.m3u8`), the `_HLS_skip` answer.
    public static func deltaName(of playlistName: String) -> String { stem(of: playlistName) + "_delta.m3u8" }

    /// Content types by extension (RFC 8216bis; `video/iso.segment` is the registered type of a
    /// CMAF segment or part).
    static let contentTypes: [String: String] = [
        "m3u8": "application/vnd.apple.mpegurl",
        "m4s": "video/iso.segment",
        "mp4": "video/mp4",
        "ts": "video/mp2t",
        "aac": "audio/aac",
        "m4a": "audio/mp4",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "vtt": "text/vtt; charset=utf-8",
    ]

    /// `Cache-Control` of a file of this kind. A plain playlist request lives a second; a
    /// blocking one names a point of the stream its answer will always reach, so a CDN may keep
    /// it for six target durations as Apple's LL-HLS guidance suggests (the next request names a
    /// later point); media never changes under its name.
    public static func cacheControl(_ kind: Kind, blocking: Bool = false, targetDuration: Double = 0) -> String {
        switch kind {
        case .playlist:
            blocking ? "max-age=\(max(1, Int((6 * targetDuration).rounded())))" : "max-age=1"
        case .immutable: "public, max-age=31536000, immutable"
        case .changing: "max-age=1"
        }
    }
}
