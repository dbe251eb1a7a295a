/// An HLS output (`….m3u8`), resolved: where its playlist and segments go and how they are cut.
public struct HLSSettings: Codable, Sendable, Equatable {
    public enum Playlist: String, Codable, Sendable, CaseIterable {
        /// A sliding window of the newest segments; older ones are deleted.
        case live
        /// Every segment kept: a replay while live, a VOD once the task stops.
        case event
    }

    public enum SegmentFormat: String, Codable, Sendable, CaseIterable {
        /// Fragmented MP4 (CMAF): an init segment, then `.m4s` media segments.
        case fmp4
        /// MPEG-TS segments.
        case ts
    }

    /// The playlist: an absolute file path under the output directory, or an `http(s)` URL that
    /// segments and playlists are sent to with `PUT`.
    public var playlist: String
    public var overHTTP: Bool
    public var segmentSeconds: Double
    public var playlistType: Playlist
    /// Segments a `live` playlist keeps.
    public var windowSegments: Int
    public var segmentFormat: SegmentFormat

    public init(playlist: String, overHTTP: Bool, segmentSeconds: Double = 2, playlistType: Playlist = .event,
                windowSegments: Int = 6, segmentFormat: SegmentFormat = .fmp4) {
        self.playlist = playlist; self.overHTTP = overHTTP; self.segmentSeconds = segmentSeconds
        self.playlistType = playlistType; self.windowSegments = windowSegments; self.segmentFormat = segmentFormat
    }

    /// The playlist's location without its `.m3u8`: segments are named after it
    /// (`room_00003.m4s`, `room_init.mp4`) beside it.
    public var stem: String {
        let end = playlist.range(of: ".m3u8", options: [.caseInsensitive, .backwards])?.lowerBound ?? playlist.endIndex
        return String(playlist[..<end])
    }
}
