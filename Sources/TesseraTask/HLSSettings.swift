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
    /// LL-HLS: each segment cut into parts of at most this length (`EXT-X-PART`); nil: classic HLS.
    public var partSeconds: Double?
    /// A `live` playlist's window by duration (`dvrSeconds`); nil: `windowSegments` segments.
    public var dvrSeconds: Double?
    /// The key viewers' URLs carry at Tessera's origin (given in the task, or made by `serve`).
    public var viewerKey: String?

    public init(playlist: String, overHTTP: Bool, segmentSeconds: Double = 2, playlistType: Playlist = .event,
                windowSegments: Int = 6, segmentFormat: SegmentFormat = .fmp4, partSeconds: Double? = nil,
                dvrSeconds: Double? = nil, viewerKey: String? = nil) {
        self.playlist = playlist; self.overHTTP = overHTTP; self.segmentSeconds = segmentSeconds
        self.playlistType = playlistType; self.windowSegments = windowSegments; self.segmentFormat = segmentFormat
        self.partSeconds = partSeconds; self.dvrSeconds = dvrSeconds; self.viewerKey = viewerKey
    }

    /// Segments a `live` playlist keeps: `dvrSeconds` of them (rounded up) when given.
    public var windowSegmentCount: Int {
        guard let dvrSeconds else { return windowSegments }
        return max(2, Int((dvrSeconds / segmentSeconds - 1e-9).rounded(.up)))
    }

    /// The playlist's location without its `.m3u8`: segments are named after it
    /// (`room_00003.m4s`, `room_init.mp4`) beside it.
    public var stem: String {
        let end = playlist.range(of: ".m3u8", options: [.caseInsensitive, .backwards])?.lowerBound ?? playlist.endIndex
        return String(playlist[..<end])
    }
}
