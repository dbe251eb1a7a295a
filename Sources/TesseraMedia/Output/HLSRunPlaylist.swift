/// One run of an HLS output over a media playlist that earlier runs may have written (the same
/// task after a worker restart, a move to another node, a re-POST, an origin reconnect): which
/// initialization segment this run writes, and the playlist as players must read it.
///
/// FFmpeg 5.1's HLS muxer continues an existing playlist (`append_list`) but writes one
/// `#EXT-X-MAP` for every segment, naming the current run's init segment; and it always names the
/// same init file, so a second run at another size overwrote the first run's. Here each run gets
/// its own init name (`room_init.mp4`, then `room_init_1.mp4`, `room_init_2.mp4`, …) and every
/// playlist FFmpeg writes is rewritten so that each run's segments follow their own
/// `#EXT-X-MAP`, each run after the first starts with `#EXT-X-DISCONTINUITY` (none before the
/// first segment listed), and a sliding window counts the discontinuities it dropped in
/// `#EXT-X-DISCONTINUITY-SEQUENCE`. FFmpeg's own `#EXT-X-MAP` and discontinuity lines are not
/// trusted: runs are told apart by which segments the earlier playlist listed.
///
/// Pure: the caller reads the earlier playlist and writes what `rewrite` returns.
public struct HLSRunPlaylist: Sendable, Equatable {
    /// What an earlier run left in the playlist: each segment's init segment and run number.
    struct Known: Sendable, Equatable {
        var initName: String?
        var discontinuity: Int
    }

    /// This run's init segment (relative to the playlist's folder); nil for MPEG-TS segments.
    public let initName: String?
    /// Whether an earlier run's segments are listed (FFmpeg must then be told to append).
    public let continues: Bool
    /// Segments of earlier runs, by URI.
    private let known: [String: Known]
    /// This run's discontinuity number: one more than the last earlier run's.
    private let runDiscontinuity: Int
    /// Init segments the last playlist written named (earlier runs' ones that drop out of a
    /// sliding window can be deleted).
    private var referencedInits: Set<String>

    /// - `earlier`: the playlist as it is before this run (nil: none).
    /// - `fileName`: the playlist's name without folder and `.m3u8` (`room`, `room_r1`).
    /// - `fmp4`: fragmented MP4 segments (with an init segment) rather than MPEG-TS.
    /// - `exists`: whether a file of that name (beside the playlist) is already there; a name in
    ///   use is never chosen, whatever the playlist says.
    public init(earlier: String?, fileName: String, fmp4: Bool, exists: (String) -> Bool = { _ in false }) {
        let segments = earlier.map(Self.segments(of:)) ?? []
        var known: [String: Known] = [:]
        for segment in segments { known[segment.uri] = Known(initName: segment.initName, discontinuity: segment.discontinuity) }
        self.known = known
        continues = !segments.isEmpty
        runDiscontinuity = segments.last.map { $0.discontinuity + 1 } ?? 0
        referencedInits = Set(segments.compactMap(\.initName))
        guard fmp4 else {
            initName = nil
            return
        }
        let first = "\(fileName)_init.mp4"
        guard continues else {
            initName = first
            return
        }
        // One past the highest run number named, then past any file already there.
        var next = 1 + (segments.compactMap(\.initName).map { Self.runNumber(of: $0, fileName: fileName) }.max() ?? 0)
        while exists("\(fileName)_init_\(next).mp4") { next += 1 }
        initName = "\(fileName)_init_\(next).mp4"
    }

    /// `room_init.mp4` is run 0, `room_init_3.mp4` run 3; any other name counts as 0.
    static func runNumber(of name: String, fileName: String) -> Int {
        let prefix = "\(fileName)_init_", suffix = ".mp4"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return 0 }
        return Int(name.dropFirst(prefix.count).dropLast(suffix.count)) ?? 0
    }

    /// A segment as a playlist lists it.
    struct Segment: Equatable {
        var uri: String
        /// Tags of the segment itself (`#EXTINF`, `#EXT-X-PROGRAM-DATE-TIME`, …), in order,
        /// without `#EXT-X-MAP` and `#EXT-X-DISCONTINUITY`.
        var tags: [String]
        var initName: String?
        /// How many discontinuities come before it since the playlist's beginning.
        var discontinuity: Int
    }

    /// Tags that describe the whole playlist, not the segment after them.
    private static let playlistTags = ["#EXTM3U", "#EXT-X-VERSION", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE",
                                       "#EXT-X-DISCONTINUITY-SEQUENCE", "#EXT-X-PLAYLIST-TYPE", "#EXT-X-INDEPENDENT-SEGMENTS",
                                       "#EXT-X-ALLOW-CACHE", "#EXT-X-I-FRAMES-ONLY", "#EXT-X-START", "#EXT-X-ENDLIST"]

    private static func isPlaylistTag(_ line: Substring) -> Bool {
        playlistTags.contains { line == $0 || line.hasPrefix($0 + ":") }
    }

    /// The playlist split into its own lines (header, then what follows the last segment) and
    /// its segments, each with the init segment and run number the playlist gives it.
    static func parse(_ text: String) -> (header: [String], segments: [Segment], trailer: [String]) {
        var header: [String] = [], trailer: [String] = [], segments: [Segment] = []
        var tags: [String] = []
        var currentInit: String?
        var discontinuity = 0
        var pendingDiscontinuity = false
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let text = Substring(line)
            if text.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") {
                discontinuity = Int(text.dropFirst("#EXT-X-DISCONTINUITY-SEQUENCE:".count)) ?? 0
            } else if text == "#EXT-X-DISCONTINUITY" {
                pendingDiscontinuity = true
            } else if text.hasPrefix("#EXT-X-MAP:") {
                currentInit = mapURI(text)
            } else if isPlaylistTag(text) {
                if segments.isEmpty { header.append(line) } else { trailer.append(line) }
            } else if text.hasPrefix("#") {
                tags.append(line)
            } else {
                // A discontinuity before the first segment separates it from nothing.
                if pendingDiscontinuity && !segments.isEmpty { discontinuity += 1 }
                pendingDiscontinuity = false
                segments.append(Segment(uri: line, tags: tags, initName: currentInit, discontinuity: discontinuity))
                tags = []
                trailer = []
            }
        }
        return (header, segments, trailer + tags)
    }

    static func segments(of text: String) -> [Segment] { parse(text).segments }

    /// `#EXT-X-MAP:URI="room_init.mp4"` → `room_init.mp4`.
    private static func mapURI(_ line: Substring) -> String? {
        guard let start = line.range(of: "URI=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// The playlist FFmpeg wrote, as players must read it; and the init segments of earlier runs
    /// that it no longer names (a `live` window moved past them: their files may go).
    public mutating func rewrite(_ written: String) -> (text: String, released: [String]) {
        let (header, parsed, trailer) = Self.parse(written)
        var segments = parsed
        for index in segments.indices {
            if let earlier = known[segments[index].uri] {
                segments[index].initName = earlier.initName
                segments[index].discontinuity = earlier.discontinuity
            } else {
                segments[index].initName = initName
                segments[index].discontinuity = runDiscontinuity
            }
        }
        var lines: [String] = []
        var wroteSequence = false
        let firstDiscontinuity = segments.first?.discontinuity ?? 0
        for line in header {
            lines.append(line)
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:"), firstDiscontinuity > 0 {
                lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(firstDiscontinuity)")
                wroteSequence = true
            }
        }
        if firstDiscontinuity > 0, !wroteSequence {
            let at = lines.firstIndex { $0.hasPrefix("#EXT-X-TARGETDURATION") }.map { $0 + 1 } ?? lines.count
            lines.insert("#EXT-X-DISCONTINUITY-SEQUENCE:\(firstDiscontinuity)", at: at)
        }
        var previous: Segment?
        for segment in segments {
            if let previous, previous.discontinuity != segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if let name = segment.initName, previous == nil || previous?.initName != name
                || previous?.discontinuity != segment.discontinuity {
                lines.append("#EXT-X-MAP:URI=\"\(name)\"")
            }
            lines += segment.tags
            lines.append(segment.uri)
            previous = segment
        }
        lines += trailer
        let named = Set(segments.compactMap(\.initName))
        let released = referencedInits.subtracting(named).subtracting([initName].compactMap { $0 }).sorted()
        referencedInits = named
        return (lines.joined(separator: "\n") + "\n", released)
    }
}
