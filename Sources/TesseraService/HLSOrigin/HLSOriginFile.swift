import Foundation

/// Which files of an HLS output the origin serves, and how: a name the output itself wrote
/// (`HLSOutputNames`: its playlists, init sections, segments, parts, thumbnails), in its
/// playlist's folder, that no other output of the task in that folder owns. Anything else is the
/// same 404 as a wrong viewer key. Pure.
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
    public var position: (msn: Int, part: Int?)?
    /// The media playlist a part or segment belongs to (`room_r1_00012.3.m4s` → `room_r1.m3u8`).
    public var mediaPlaylistName: String?

    public init(name: String, kind: Kind, contentType: String, position: (msn: Int, part: Int?)? = nil,
                mediaPlaylistName: String? = nil) {
        self.name = name; self.kind = kind; self.contentType = contentType
        self.position = position; self.mediaPlaylistName = mediaPlaylistName
    }

    public static func == (lhs: HLSOriginFile, rhs: HLSOriginFile) -> Bool {
        lhs.name == rhs.name && lhs.kind == rhs.kind && lhs.contentType == rhs.contentType
            && lhs.position?.msn == rhs.position?.msn && lhs.position?.part == rhs.position?.part
            && lhs.mediaPlaylistName == rhs.mediaPlaylistName
    }

    /// The file `name` as `names`' output writes it, or nil when it never writes such a name.
    public static func classify(_ name: String, names: HLSOutputNames) -> HLSOriginFile? {
        guard isPlainName(name), let role = names.role(of: name), let dot = name.lastIndex(of: "."),
              let contentType = contentTypes[name[name.index(after: dot)...].lowercased()] else { return nil }
        switch role {
        case .playlist:
            return HLSOriginFile(name: name, kind: .playlist, contentType: contentType)
        case .initialization, .thumbnail:
            return HLSOriginFile(name: name, kind: .immutable, contentType: contentType)
        case .thumbnailChanging:
            return HLSOriginFile(name: name, kind: .changing, contentType: contentType)
        case .segment(let playlist, let msn):
            return HLSOriginFile(name: name, kind: .immutable, contentType: contentType, position: (msn, nil), mediaPlaylistName: playlist)
        case .part(let playlist, let msn, let part):
            return HLSOriginFile(name: name, kind: .immutable, contentType: contentType, position: (msn, part), mediaPlaylistName: playlist)
        }
    }

    /// A single file name: no path, not hidden, nothing a file system or a log reads otherwise.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".")
            && !name.contains(where: { "/\\%\0".contains($0) || $0.isNewline })
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
