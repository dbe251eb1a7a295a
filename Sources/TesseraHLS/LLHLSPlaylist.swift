import Foundation

/// One part of a segment, as a media playlist lists it (`#EXT-X-PART`).
public struct LLHLSPart: Sendable, Equatable {
    public var uri: String
    public var durationMicroseconds: Int64
    public var independent: Bool
    public init(uri: String, durationMicroseconds: Int64, independent: Bool) {
        self.uri = uri; self.durationMicroseconds = durationMicroseconds; self.independent = independent
    }
}

/// One segment: complete (`#EXTINF` + URI), or the one being built (its parts so far).
public struct LLHLSSegment: Sendable, Equatable {
    public var sequence: Int
    public var uri: String
    public var durationMicroseconds: Int64
    /// Wall-clock time of its first frame (`#EXT-X-PROGRAM-DATE-TIME`), ms since 1970.
    public var programDateTimeMilliseconds: Int64?
    public var parts: [LLHLSPart]
    /// Its initialization section (`#EXT-X-MAP`).
    public var mapURI: String?
    /// A discontinuity comes before it (a restarted task's first segment).
    public var discontinuity: Bool
    public init(sequence: Int, uri: String, durationMicroseconds: Int64 = 0, programDateTimeMilliseconds: Int64? = nil,
                parts: [LLHLSPart] = [], mapURI: String? = nil, discontinuity: Bool = false) {
        self.sequence = sequence; self.uri = uri; self.durationMicroseconds = durationMicroseconds
        self.programDateTimeMilliseconds = programDateTimeMilliseconds; self.parts = parts; self.mapURI = mapURI
        self.discontinuity = discontinuity
    }
}

/// Another rendition of the ladder, as `#EXT-X-RENDITION-REPORT` tells a player about it.
public struct LLHLSRenditionReport: Sendable, Equatable {
    public var uri: String
    public var lastMediaSequence: Int
    public var lastPart: Int
    public init(uri: String, lastMediaSequence: Int, lastPart: Int) {
        self.uri = uri; self.lastMediaSequence = lastMediaSequence; self.lastPart = lastPart
    }
}

/// An LL-HLS media playlist (RFC 8216bis, version 9) and its text, whole or as a delta update.
///
/// Pure: `LLHLSMediaPlaylist` builds it; the packager writes `render()`.
public struct LLHLSPlaylist: Sendable, Equatable {
    public var targetDuration: Int
    public var partTargetMicroseconds: Int64
    public var mediaSequence: Int
    public var discontinuitySequence: Int
    /// `#EXT-X-PLAYLIST-TYPE:EVENT` (every segment kept) rather than a sliding window.
    public var event: Bool
    public var segments: [LLHLSSegment]
    /// The segment being built: its parts so far (nil once the playlist has ended).
    public var building: LLHLSSegment?
    /// The part that comes next (`#EXT-X-PRELOAD-HINT:TYPE=PART`).
    public var preloadHint: String?
    public var renditionReports: [LLHLSRenditionReport]
    /// `#EXT-X-ENDLIST`: the task stopped; parts, hints and server control are left out.
    public var ended: Bool
    /// False: the classic form (segments only), for a playlist uploaded where its parts are not.
    public var listsParts = true

    public init(targetDuration: Int, partTargetMicroseconds: Int64, mediaSequence: Int = 0, discontinuitySequence: Int = 0,
                event: Bool, segments: [LLHLSSegment] = [], building: LLHLSSegment? = nil, preloadHint: String? = nil,
                renditionReports: [LLHLSRenditionReport] = [], ended: Bool = false) {
        self.targetDuration = targetDuration; self.partTargetMicroseconds = partTargetMicroseconds
        self.mediaSequence = mediaSequence; self.discontinuitySequence = discontinuitySequence; self.event = event
        self.segments = segments; self.building = building; self.preloadHint = preloadHint
        self.renditionReports = renditionReports; self.ended = ended
    }

    /// Parts are listed for segments that end within this many target durations of the
    /// playlist's end (the specification asks for at least three).
    public static let partTargetDurations = 3
    /// `CAN-SKIP-UNTIL`, in target durations (the specification's minimum is six).
    public static let skipTargetDurations = 6

    public var partTargetSeconds: Double { Double(partTargetMicroseconds) / 1_000_000 }
    public var canSkipUntilSeconds: Double { Double(targetDuration * Self.skipTargetDurations) }
    public var partHoldBackSeconds: Double { 3 * partTargetSeconds }
    public var holdBackSeconds: Double { Double(3 * targetDuration) }

    /// Segments a delta update leaves out (`EXT-X-SKIP`): those that end more than
    /// `CAN-SKIP-UNTIL` before the playlist's end.
    public var skippableSegments: Int {
        guard !ended else { return 0 }
        let end = totalMicroseconds
        let boundary = end - Int64(canSkipUntilSeconds * 1_000_000)
        var elapsed: Int64 = 0, count = 0
        for segment in segments {
            elapsed += segment.durationMicroseconds
            guard elapsed <= boundary else { break }
            count += 1
        }
        return count
    }

    /// From the first listed segment to the end of the last part written.
    var totalMicroseconds: Int64 {
        segments.reduce(0) { $0 + $1.durationMicroseconds } + (building?.parts.reduce(0) { $0 + $1.durationMicroseconds } ?? 0)
    }

    /// The playlist's text; `delta`: the `_HLS_skip=YES` answer, older segments replaced by `EXT-X-SKIP`.
    public func render(delta: Bool = false) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:\(targetDuration)"]
        let lowLatency = !ended && listsParts
        if lowLatency {
            lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=\(Self.decimal(canSkipUntilSeconds)),"
                         + "PART-HOLD-BACK=\(Self.decimal(partHoldBackSeconds)),HOLD-BACK=\(Self.decimal(holdBackSeconds))")
            lines.append("#EXT-X-PART-INF:PART-TARGET=\(Self.decimal(partTargetSeconds))")
        }
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        if discontinuitySequence > 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)") }
        if event { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        let skipped = delta ? skippableSegments : 0
        if skipped > 0 { lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)") }
        let partsFrom = !lowLatency ? Int64.max : totalMicroseconds - Int64(Self.partTargetDurations * targetDuration) * 1_000_000
        var end: Int64 = 0
        var map: String?
        for (index, segment) in segments.enumerated() {
            end += segment.durationMicroseconds
            guard index >= skipped else {
                map = segment.mapURI
                continue
            }
            let first = index == skipped
            if segment.discontinuity && !first { lines.append("#EXT-X-DISCONTINUITY") }
            if let uri = segment.mapURI, first || uri != map || segment.discontinuity { lines.append("#EXT-X-MAP:URI=\"\(uri)\"") }
            map = segment.mapURI
            Self.appendDate(segment, to: &lines)
            if end > partsFrom { Self.appendParts(segment.parts, to: &lines) }
            lines.append("#EXTINF:\(Self.decimal(Double(segment.durationMicroseconds) / 1_000_000)),")
            lines.append(segment.uri)
        }
        if lowLatency, let building, !building.parts.isEmpty {
            if building.discontinuity && !segments.isEmpty { lines.append("#EXT-X-DISCONTINUITY") }
            if let uri = building.mapURI, segments.count == skipped || uri != map || building.discontinuity {
                lines.append("#EXT-X-MAP:URI=\"\(uri)\"")
            }
            Self.appendDate(building, to: &lines)
            Self.appendParts(building.parts, to: &lines)
        }
        if lowLatency, let preloadHint { lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(preloadHint)\"") }
        if lowLatency {
            for report in renditionReports {
                lines.append("#EXT-X-RENDITION-REPORT:URI=\"\(report.uri)\",LAST-MSN=\(report.lastMediaSequence),LAST-PART=\(report.lastPart)")
            }
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func appendParts(_ parts: [LLHLSPart], to lines: inout [String]) {
        for part in parts {
            lines.append("#EXT-X-PART:DURATION=\(decimal(Double(part.durationMicroseconds) / 1_000_000)),URI=\"\(part.uri)\""
                         + (part.independent ? ",INDEPENDENT=YES" : ""))
        }
    }

    private static func appendDate(_ segment: LLHLSSegment, to lines: inout [String]) {
        guard let milliseconds = segment.programDateTimeMilliseconds else { return }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:" + programDateTime(milliseconds))
    }

    /// `2026-11-28T07:25:37.123Z`.
    public static func programDateTime(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Five decimals, trailing zeros dropped (`0.33333`, `2`, `1.5`).
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.5f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
