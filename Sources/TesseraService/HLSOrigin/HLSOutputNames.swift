import Foundation

/// The exact names one HLS output writes beside its playlist, as the writers name them, and which
/// output of a task owns a name when several share a folder. Pure.
///
/// An output whose playlist is `room.m3u8` (stem `room`) writes, per media playlist M (`room`
/// itself, or `room_r0` … `room_rN-1` under a master `room.m3u8` when the task has renditions):
/// `M.m3u8`, `M_delta.m3u8` (LL-HLS), `M_init.mp4` and `M_init_K.mp4` (a later run's, see
/// `HLSRunPlaylist`), segments `M_NNNNN.m4s` / `M_NNNNN.ts` (five digits or more,
/// `LLHLSMediaPlaylist.segmentName`, FFmpeg's `%05d`), parts `M_NNNNN.P.m4s`; and with
/// thumbnails (`ThumbnailPlan`) `room_thumb_NNNNN.jpg`, `room_thumb_latest.jpg`,
/// `room_sprite_NNNNN.jpg`, `room_thumbnails.vtt`. Nothing else.
///
/// A prefix test (`room_…`) is not enough: a second output `room_x.m3u8` in the same folder
/// writes `room_x_00001.m4s`, which starts with `room_` — served under `room`'s key, it would
/// leak the other output to `room`'s viewers. The grammar rejects it; where two outputs' grammars
/// both accept a name (`room` with renditions writes `room_r1.m3u8`, and so would an output
/// `room_r1.m3u8`), the output with the longer stem owns it: its name says so more exactly.
public struct HLSOutputNames: Sendable, Equatable {
    /// The playlist's name without `.m3u8` (`room`, `room.1` after a move to the next free name).
    public var stem: String
    /// Renditions of a ladder (0: the playlist is the only media playlist).
    public var renditions: Int
    /// The output takes thumbnails (`outputs[].thumbnails`).
    public var thumbnails: Bool

    public init(playlistName: String, renditions: Int = 0, thumbnails: Bool = false) {
        stem = HLSOriginFile.stem(of: playlistName)
        self.renditions = renditions
        self.thumbnails = thumbnails
    }

    /// What a name is, when the output writes it.
    public enum Role: Sendable, Equatable {
        /// A media playlist (or its delta form), or a ladder's master playlist.
        case playlist
        case initialization
        /// Segment `msn` of media playlist `playlist` (`room_r1.m3u8`).
        case segment(playlist: String, msn: Int)
        /// Part `part` of segment `msn`.
        case part(playlist: String, msn: Int, part: Int)
        /// A numbered thumbnail (written once).
        case thumbnail
        /// The newest thumbnail, a sprite sheet being filled, the WebVTT track: rewritten.
        case thumbnailChanging
    }

    /// The role of `name` among this output's files, or nil when the output never writes it.
    public func role(of name: String) -> Role? {
        guard !stem.isEmpty else { return nil }
        if name == stem + ".m3u8" { return .playlist }
        if thumbnails, let role = thumbnailRole(of: name) { return role }
        for media in mediaStems {
            guard name.hasPrefix(media), let role = mediaRole(of: name.dropFirst(media.count), media: media) else { continue }
            return role
        }
        return nil
    }

    /// The media playlists' stems: the output's own, or its renditions'.
    var mediaStems: [String] { renditions > 0 ? (0..<renditions).map { "\(stem)_r\($0)" } : [stem] }

    /// What follows a media stem: `.m3u8` (a rendition's playlist), `_delta.m3u8`, `_init….mp4`,
    /// `_NNNNN.m4s`, `_NNNNN.ts`, `_NNNNN.P.m4s`.
    private func mediaRole(of rest: Substring, media: String) -> Role? {
        if rest == ".m3u8" { return renditions > 0 ? .playlist : nil }
        guard rest.first == "_" else { return nil }
        let tail = rest.dropFirst()
        if tail == "delta.m3u8" || tail == "init.mp4" { return tail == "init.mp4" ? .initialization : .playlist }
        if tail.hasPrefix("init_"), tail.hasSuffix(".mp4"), Self.number(tail.dropFirst(5).dropLast(4), minDigits: 1) != nil {
            return .initialization
        }
        let playlist = media + ".m3u8"
        if tail.hasSuffix(".ts") {
            return Self.number(tail.dropLast(3), minDigits: 5).map { .segment(playlist: playlist, msn: $0) }
        }
        guard tail.hasSuffix(".m4s") else { return nil }
        let numbers = tail.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard let msn = numbers.first.flatMap({ Self.number($0, minDigits: 5) }) else { return nil }
        switch numbers.count {
        case 1: return .segment(playlist: playlist, msn: msn)
        case 2: return Self.number(numbers[1], minDigits: 1).map { .part(playlist: playlist, msn: msn, part: $0) }
        default: return nil
        }
    }

    /// `ThumbnailPlan`'s names.
    private func thumbnailRole(of name: String) -> Role? {
        let prefix = stem + "_"
        guard name.hasPrefix(prefix) else { return nil }
        let tail = name.dropFirst(prefix.count)
        if tail == "thumb_latest.jpg" || tail == "thumbnails.vtt" { return .thumbnailChanging }
        if tail.hasPrefix("thumb_"), tail.hasSuffix(".jpg"), Self.number(tail.dropFirst(6).dropLast(4), minDigits: 5) != nil {
            return .thumbnail
        }
        if tail.hasPrefix("sprite_"), tail.hasSuffix(".jpg"), Self.number(tail.dropFirst(7).dropLast(4), minDigits: 5) != nil {
            return .thumbnailChanging
        }
        return nil
    }

    /// ASCII digits only, at least `minDigits`, at most nine (no sign, no overflow).
    static func number(_ text: Substring, minDigits: Int) -> Int? {
        guard text.count >= minDigits, text.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }
}
