/// One LL-HLS media playlist over a task's life: parts and segments as the packager writes them,
/// the rewind window (segments that fall out and their files), part files given up once players
/// no longer need them, and the end (`EVENT` → the complete VOD, a window → its last window,
/// both with `#EXT-X-ENDLIST`).
///
/// Pure: each call returns the playlists to write (the delta first, then the whole one) and the
/// files to delete; the packager does the I/O.
public struct LLHLSMediaPlaylist: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// The playlist's name without folder and `.m3u8` (`room`, `room_r1`): files are named after it.
        public var fileName: String
        public var segmentSeconds: Double
        public var partMicroseconds: Int64
        /// Segments a sliding window keeps; nil: an `EVENT` playlist keeps them all.
        public var windowSegments: Int?
        /// This run's initialization section (`room_init.mp4`, `room_init_1.mp4` after a restart).
        public var initName: String
        /// False for a playlist uploaded to an object store, where parts are not: segments only.
        public var listsParts: Bool
        public init(fileName: String, segmentSeconds: Double, partMicroseconds: Int64, windowSegments: Int?, initName: String,
                    listsParts: Bool = true) {
            self.fileName = fileName; self.segmentSeconds = segmentSeconds; self.partMicroseconds = partMicroseconds
            self.windowSegments = windowSegments; self.initName = initName; self.listsParts = listsParts
        }
    }

    /// What to write and delete after a call.
    public struct Update: Sendable, Equatable {
        public var playlist: String
        /// The delta update (`NAME_delta.m3u8`), written before the playlist.
        public var delta: String
        /// File names (beside the playlist) no playlist names any more.
        public var deleted: [String]
        /// The part just published (nil at the end).
        public var mediaSequence: Int?
        public var partIndex: Int?
        /// The segment the part completed: its file is its parts' bytes in order.
        public var completedSegment: (uri: String, parts: [String])?

        public static func == (lhs: Update, rhs: Update) -> Bool {
            lhs.playlist == rhs.playlist && lhs.delta == rhs.delta && lhs.deleted == rhs.deleted
                && lhs.mediaSequence == rhs.mediaSequence && lhs.partIndex == rhs.partIndex
                && lhs.completedSegment?.uri == rhs.completedSegment?.uri && lhs.completedSegment?.parts == rhs.completedSegment?.parts
        }
    }

    public let configuration: Configuration
    public private(set) var playlist: LLHLSPlaylist
    /// Segments whose part files are still on disk, oldest first.
    private var partFilesKept: [(sequence: Int, end: Int64, parts: [String])] = []
    /// Time from the run's first listed segment to the last part's end.
    private var elapsed: Int64 = 0
    private let earlierInits: Set<String>

    /// `earlier`: what an earlier run of the same output left (`LLHLSEarlierPlaylist`); this run
    /// continues its numbering after a discontinuity.
    public init(_ configuration: Configuration, earlier: LLHLSEarlierPlaylist? = nil) {
        self.configuration = configuration
        let target = Int(configuration.segmentSeconds.rounded(.up))
        var segments = earlier?.segments ?? []
        for index in segments.indices { segments[index].parts = [] }
        playlist = LLHLSPlaylist(targetDuration: max(1, target), partTargetMicroseconds: configuration.partMicroseconds,
                                 mediaSequence: earlier?.mediaSequence ?? 0,
                                 discontinuitySequence: earlier?.discontinuitySequence ?? 0,
                                 event: configuration.windowSegments == nil, segments: segments)
        playlist.listsParts = configuration.listsParts
        earlierInits = Set(segments.compactMap(\.mapURI)).subtracting([configuration.initName])
        elapsed = segments.reduce(0) { $0 + $1.durationMicroseconds }
        playlist.preloadHint = Self.partName(configuration.fileName, sequence: firstSequence, part: 0)
    }

    /// The media sequence number of this run's first segment.
    public var firstSequence: Int { (playlist.segments.last?.sequence).map { $0 + 1 } ?? playlist.mediaSequence }

    /// `room_00012.3.m4s`: part 3 of segment 12.
    public static func partName(_ fileName: String, sequence: Int, part: Int) -> String {
        "\(fileName)_\(padded(sequence)).\(part).m4s"
    }

    /// `room_00012.m4s`.
    public static func segmentName(_ fileName: String, sequence: Int) -> String { "\(fileName)_\(padded(sequence)).m4s" }

    private static func padded(_ number: Int) -> String {
        let digits = String(number)
        return digits.count >= 5 ? digits : String(repeating: "0", count: 5 - digits.count) + digits
    }

    /// The last part published, as other renditions report it.
    public func report(uri: String) -> LLHLSRenditionReport? {
        if let building = playlist.building, !building.parts.isEmpty {
            return LLHLSRenditionReport(uri: uri, lastMediaSequence: building.sequence, lastPart: building.parts.count - 1)
        }
        guard let last = playlist.segments.last else { return nil }
        return LLHLSRenditionReport(uri: uri, lastMediaSequence: last.sequence, lastPart: max(0, last.parts.count - 1))
    }

    /// The other renditions' reports, listed from the next playlist on.
    public mutating func setRenditionReports(_ reports: [LLHLSRenditionReport]) { playlist.renditionReports = reports }

    /// `part` has been written to its file (`partName`); `programDateTimeMilliseconds` is its
    /// segment's first frame's wall-clock time.
    public mutating func partWritten(_ part: LLHLSSegmenter.ClosedPart, programDateTimeMilliseconds: Int64?) -> Update {
        let name = configuration.fileName
        let partURI = Self.partName(name, sequence: part.segment, part: part.part)
        if playlist.building?.sequence != part.segment {
            // A restarted task's first segment follows an earlier run's after a discontinuity.
            let first = isFirstOfRun
            playlist.building = LLHLSSegment(sequence: part.segment, uri: Self.segmentName(name, sequence: part.segment),
                                             programDateTimeMilliseconds: programDateTimeMilliseconds,
                                             mapURI: configuration.initName, discontinuity: first && !playlist.segments.isEmpty)
            isFirstOfRun = false
        }
        playlist.building?.parts.append(LLHLSPart(uri: partURI, durationMicroseconds: part.durationMicroseconds,
                                                  independent: part.independent))
        elapsed += part.durationMicroseconds
        var deleted: [String] = []
        var completed: (uri: String, parts: [String])?
        if part.endsSegment, var segment = playlist.building {
            segment.durationMicroseconds = part.segmentDurationMicroseconds ?? segment.parts.reduce(0) { $0 + $1.durationMicroseconds }
            playlist.segments.append(segment)
            playlist.building = nil
            partFilesKept.append((segment.sequence, elapsed, segment.parts.map(\.uri)))
            completed = (segment.uri, segment.parts.map(\.uri))
            playlist.targetDuration = max(playlist.targetDuration, Int((Double(segment.durationMicroseconds) / 1_000_000).rounded()))
            deleted += slideWindow()
            playlist.preloadHint = Self.partName(name, sequence: part.segment + 1, part: 0)
        } else {
            playlist.preloadHint = Self.partName(name, sequence: part.segment, part: part.part + 1)
        }
        deleted += expirePartFiles()
        return Update(playlist: playlist.render(), delta: playlist.render(delta: true), deleted: deleted,
                      mediaSequence: part.segment, partIndex: part.part, completedSegment: completed)
    }

    private var isFirstOfRun = true

    /// The task stopped: the playlist as it stays (no parts, no hint, `#EXT-X-ENDLIST`). Part
    /// files still on disk stay (a player may be reading one); the origin no longer lists them.
    public mutating func end() -> Update {
        playlist.building = nil
        playlist.preloadHint = nil
        playlist.ended = true
        return Update(playlist: playlist.render(), delta: playlist.render(delta: true), deleted: [],
                      mediaSequence: nil, partIndex: nil, completedSegment: nil)
    }

    /// A sliding window drops its oldest segments (their files, parts and an earlier run's init
    /// section no segment names any more), the media sequence going on.
    private mutating func slideWindow() -> [String] {
        guard let window = configuration.windowSegments else { return [] }
        var deleted: [String] = []
        while playlist.segments.count > window {
            let gone = playlist.segments.removeFirst()
            playlist.mediaSequence += 1
            if playlist.segments.first?.discontinuity == true {
                playlist.discontinuitySequence += 1
                playlist.segments[0].discontinuity = false
            }
            deleted.append(gone.uri)
            if let kept = partFilesKept.firstIndex(where: { $0.sequence == gone.sequence }) {
                deleted += partFilesKept.remove(at: kept).parts
            }
            if let map = gone.mapURI, earlierInits.contains(map), !playlist.segments.contains(where: { $0.mapURI == map }) {
                deleted.append(map)
            }
        }
        return deleted
    }

    /// Part files of segments that ended more than twice the time parts are listed ago: no
    /// playlist names them, and a player that read an older one has had time to fetch them.
    private mutating func expirePartFiles() -> [String] {
        let horizon = Int64(2 * LLHLSPlaylist.partTargetDurations * playlist.targetDuration) * 1_000_000
        var deleted: [String] = []
        while let oldest = partFilesKept.first, elapsed - oldest.end > horizon {
            deleted += oldest.parts
            partFilesKept.removeFirst()
        }
        return deleted
    }
}
