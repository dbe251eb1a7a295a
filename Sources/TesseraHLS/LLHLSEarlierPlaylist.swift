import Foundation

/// What an earlier run of the same output left in its LL-HLS playlist (a worker restart, a move
/// to another node): its complete segments, the media and discontinuity sequence, so that the
/// new run continues the numbering after a discontinuity and no file is overwritten. Parts and
/// hints of the earlier run are not kept: that run is over.
///
/// Pure: parses the playlist's text.
public struct LLHLSEarlierPlaylist: Sendable, Equatable {
    public var mediaSequence: Int
    public var discontinuitySequence: Int
    public var segments: [LLHLSSegment]

    /// Nil when the text lists no segment.
    public init?(_ text: String) {
        var mediaSequence = 0, discontinuitySequence = 0
        var segments: [LLHLSSegment] = []
        var map: String?
        var date: Int64?
        var duration: Int64?
        var discontinuity = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if let value = Self.value(line, "#EXT-X-MEDIA-SEQUENCE:") {
                mediaSequence = Int(value) ?? 0
            } else if let value = Self.value(line, "#EXT-X-DISCONTINUITY-SEQUENCE:") {
                discontinuitySequence = Int(value) ?? 0
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if line.hasPrefix("#EXT-X-MAP:") {
                map = Self.quoted(line, "URI")
            } else if let value = Self.value(line, "#EXT-X-PROGRAM-DATE-TIME:") {
                date = Self.milliseconds(value)
            } else if let value = Self.value(line, "#EXTINF:") {
                let seconds = Double(value.prefix { $0 != "," }) ?? 0
                duration = Int64((seconds * 1_000_000).rounded())
            } else if !line.isEmpty, !line.hasPrefix("#"), let length = duration {
                let sequence = mediaSequence + segments.count
                segments.append(LLHLSSegment(sequence: sequence, uri: line, durationMicroseconds: length,
                                             programDateTimeMilliseconds: date, mapURI: map,
                                             discontinuity: discontinuity && !segments.isEmpty))
                (date, duration, discontinuity) = (nil, nil, false)
            }
        }
        guard !segments.isEmpty else { return nil }
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.segments = segments
    }

    private static func value(_ line: String, _ tag: String) -> Substring? {
        line.hasPrefix(tag) ? line.dropFirst(tag.count) : nil
    }

    /// `URI="room_init.mp4"` in an attribute list.
    static func quoted(_ line: String, _ attribute: String) -> String? {
        guard let start = line.range(of: attribute + "=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func milliseconds(_ text: Substring) -> Int64? {
        let string = String(text)
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        guard let date = (try? fractional.parse(string)) ?? (try? Date.ISO8601FormatStyle().parse(string)) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
