import Foundation

/// A part of an LL-HLS media playlist: part `part` (from 0) of the segment with media sequence
/// number `msn`. Ordered as the playlist grows.
public struct HLSPartPosition: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var msn: Int
    public var part: Int

    public init(msn: Int, part: Int) { self.msn = msn; self.part = part }

    public static func < (lhs: HLSPartPosition, rhs: HLSPartPosition) -> Bool {
        (lhs.msn, lhs.part) < (rhs.msn, rhs.part)
    }

    public var description: String { "\(msn).\(part)" }
}

/// What the origin needs to know of a media playlist as written on disk: whether it offers
/// blocking reloads and delta updates, how long its segments and parts are, and how far it has
/// got (its last whole segment, its last part, the part its preload hint names). Pure: read from
/// the playlist's text (the worker's own file, not a caller's media).
public struct HLSPlaylistSummary: Sendable, Equatable {
    /// `EXT-X-TARGETDURATION` (seconds); 0 when absent.
    public var targetDuration: Double = 0
    /// `EXT-X-PART-INF:PART-TARGET` (seconds); nil for a classic playlist.
    public var partTarget: Double?
    /// `EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES`.
    public var canBlockReload = false
    /// `EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL` (seconds): the playlist has a delta form.
    public var canSkipUntil: Double?
    /// Media sequence number of the last whole segment listed (an `EXTINF` and its URI).
    public var lastSegment: Int?
    /// The last part listed.
    public var lastPart: HLSPartPosition?
    /// `EXT-X-PRELOAD-HINT:TYPE=PART` URI: the part the server is about to write.
    public var preloadHint: String?
    /// `EXT-X-ENDLIST`: nothing more will be added.
    public var ended = false
    /// A multivariant (master) playlist: it names other playlists, not media.
    public var isMultivariant = false

    public init() {}

    /// The newest media sequence number the playlist speaks of (a whole segment or a part).
    public var newestMSN: Int? {
        switch (lastSegment, lastPart?.msn) {
        case let (segment?, part?): max(segment, part)
        case let (segment, part): segment ?? part
        }
    }

    public init(text: String) {
        var mediaSequence = 0
        var segments = 0
        var partsInSegment = 0
        var awaitingURI = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if !line.hasPrefix("#") {
                if awaitingURI {
                    lastSegment = mediaSequence + segments
                    segments += 1
                    partsInSegment = 0
                    awaitingURI = false
                }
                continue
            }
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXT-X-TARGETDURATION": targetDuration = Self.seconds(value) ?? 0
            case "#EXT-X-MEDIA-SEQUENCE": mediaSequence = Self.count(value) ?? 0
            case "#EXT-X-PART-INF": partTarget = Self.attributes(value)["PART-TARGET"].flatMap { Self.seconds($0) }
            case "#EXT-X-SERVER-CONTROL":
                let attributes = Self.attributes(value)
                canBlockReload = attributes["CAN-BLOCK-RELOAD"] == "YES"
                canSkipUntil = attributes["CAN-SKIP-UNTIL"].flatMap { Self.seconds($0) }
            case "#EXT-X-SKIP":
                segments += Self.attributes(value)["SKIPPED-SEGMENTS"].flatMap { Self.count($0) } ?? 0
            case "#EXTINF": awaitingURI = true
            case "#EXT-X-PART":
                lastPart = HLSPartPosition(msn: mediaSequence + segments, part: partsInSegment)
                partsInSegment += 1
            case "#EXT-X-PRELOAD-HINT":
                let attributes = Self.attributes(value)
                if attributes["TYPE"] == "PART" { preloadHint = attributes["URI"] }
            case "#EXT-X-ENDLIST": ended = true
            case "#EXT-X-STREAM-INF": isMultivariant = true
            default: break
            }
        }
    }

    /// A duration as the playlist gives it, or nil: finite, from 0 to a day. The worker writes
    /// the playlist, but a number read back must not reach the arithmetic of a hold (`3 /
    /// PART-TARGET`, `3 × TARGETDURATION`) as an infinity or a value that overflows an `Int`.
    static func seconds<S: StringProtocol>(_ text: S) -> Double? {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, (0...86_400).contains(value) else { return nil }
        return value
    }

    /// A media sequence number or a segment count, or nil: 0 to 2^40 (a segment a second for
    /// 34 000 years), so sums of them never overflow.
    static func count<S: StringProtocol>(_ text: S) -> Int? {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...(1 << 40)).contains(value) else { return nil }
        return value
    }

    /// `#TAG:VALUE` → (`#TAG`, `VALUE`).
    static func split(_ line: String) -> (String, Substring) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), line[line.index(after: colon)...])
    }

    /// An attribute list (`A=1,B="x,y"`), quotes removed.
    static func attributes(_ list: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var name = "", value = "", inName = true, quoted = false
        func flush() {
            if !name.isEmpty { result[name.trimmingCharacters(in: .whitespaces)] = value }
            name = ""; value = ""; inName = true
        }
        for character in list {
            if inName {
                if character == "=" { inName = false } else if character != "," { name.append(character) }
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                flush()
            } else {
                value.append(character)
            }
        }
        flush()
        return result
    }
}
