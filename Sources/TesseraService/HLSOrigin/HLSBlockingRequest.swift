import Foundation

/// The delivery directives of a playlist request (RFC 8216bis §6.2.5.2: `_HLS_msn`, `_HLS_part`,
/// `_HLS_skip`) and what the origin does with them against the playlist as it stands: answer
/// now (the whole playlist or its delta form), hold the request until a part appears, or refuse
/// it (400). Pure: the controller reads the file, asks `decide`, and waits or answers.
public struct HLSBlockingRequest: Sendable, Equatable {
    public enum Skip: String, Sendable, Equatable {
        /// `_HLS_skip=YES`: older segments may be skipped.
        case yes = "YES"
        /// `_HLS_skip=v2`: and older date ranges; the delta playlist answers both.
        case v2
    }

    /// `_HLS_msn`: hold until the playlist has this segment (or, with `part`, this part).
    public var msn: Int?
    /// `_HLS_part`: with `msn`, hold until that part of that segment exists.
    public var part: Int?
    public var skip: Skip?

    public init(msn: Int? = nil, part: Int? = nil, skip: Skip? = nil) {
        self.msn = msn; self.part = part; self.skip = skip
    }

    /// What to do with the request.
    public enum Decision: Sendable, Equatable {
        /// Answer with the playlist now: its delta form (`NAME_delta.m3u8`) when `delta`.
        case answer(delta: Bool, blocking: Bool)
        /// Hold the request until the worker publishes `until` (or, for a segment, the part
        /// after it), at most `timeoutSeconds`; then answer (or 503 when it never came).
        case hold(until: Awaited, timeoutSeconds: Double, delta: Bool)
        /// 400 Bad Request, saying why.
        case refuse(String)
    }

    /// What a held request waits for.
    public enum Awaited: Sendable, Equatable {
        /// A part (or, past the last part of its segment, the next segment's first part).
        case part(HLSPartPosition)
        /// A whole segment: it is listed once the next segment's first part is.
        case segment(Int)

        /// Whether the playlist on disk lists it already.
        public func isListed(in playlist: HLSPlaylistSummary) -> Bool { HLSBlockingRequest.holds(self, playlist) }

        /// Whether the newest part published reaches it.
        public func isReached(by published: HLSPartPosition) -> Bool {
            switch self {
            case .part(let position): published >= position
            case .segment(let msn): published.msn > msn
            }
        }
    }

    /// Reads the directives from the query's (name, value) pairs. Other parameters are left to
    /// others (a CDN's cache-busting token, a directive of a later edition). A directive given
    /// twice, a number that is not plain ASCII digits (at most nine: no sign, and no overflow in
    /// `decide`'s arithmetic), a `_HLS_skip` other than `YES` / `v2`, or `_HLS_part` without
    /// `_HLS_msn` is refused, the message naming the parameter and (shortened) the value given.
    public static func parse(_ query: [(name: String, value: String)]) -> Result<HLSBlockingRequest, HLSRequestRefusal> {
        var request = HLSBlockingRequest()
        var seen: Set<String> = []
        for (name, value) in query where ["_HLS_msn", "_HLS_part", "_HLS_skip"].contains(name) {
            guard seen.insert(name).inserted else { return .failure(HLSRequestRefusal("\(name) is given more than once")) }
            switch name {
            case "_HLS_msn":
                guard let number = HLSOutputNames.number(Substring(value), minDigits: 1) else {
                    return .failure(HLSRequestRefusal("\(name) must be a whole number from 0 to 999999999, not \(quoted(value))"))
                }
                request.msn = number
            case "_HLS_part":
                guard let number = HLSOutputNames.number(Substring(value), minDigits: 1) else {
                    return .failure(HLSRequestRefusal("\(name) must be a whole number from 0 to 999999999, not \(quoted(value))"))
                }
                request.part = number
            case "_HLS_skip":
                guard let skip = Skip(rawValue: value) else {
                    return .failure(HLSRequestRefusal("\(name) must be YES or v2, not \(quoted(value))"))
                }
                request.skip = skip
            default:
                continue
            }
        }
        if request.part != nil && request.msn == nil {
            return .failure(HLSRequestRefusal("_HLS_part needs _HLS_msn"))
        }
        return .success(request)
    }

    /// A value as a message shows it: quoted, at most 24 characters.
    static func quoted(_ value: String) -> String {
        "\"" + (value.count > 24 ? String(value.prefix(24)) + "…" : value) + "\""
    }

    /// Whether the request carries a blocking directive.
    public var isBlocking: Bool { msn != nil }

    /// The decision against the playlist as it is on disk. A playlist that offers no blocking
    /// reload (a classic one) ignores the directives, as it does not offer them; one that offers
    /// no delta form answers `_HLS_skip` with the whole playlist (the spec allows it).
    public func decide(_ playlist: HLSPlaylistSummary) -> Decision {
        let delta = skip != nil && playlist.canSkipUntil != nil
        guard let msn, playlist.canBlockReload else { return .answer(delta: delta, blocking: false) }
        // The stream is over (the task ended): nothing more will come, however far ahead the
        // request asks; the final playlist at once tells the player so (a 400 or a hold would not).
        if playlist.ended { return .answer(delta: delta, blocking: true) }
        let newest = playlist.newestMSN ?? -1
        if msn > newest + 2 {
            return .refuse("_HLS_msn \(msn) is more than two segments past the playlist's last (\(newest))")
        }
        if let part, let last = playlist.lastPart, msn >= last.msn {
            let limit = Self.advancePartLimit(partTarget: playlist.partTarget)
            let ahead = msn == last.msn ? part - last.part : part + 1
            if ahead > limit {
                return .refuse("_HLS_part \(part) of segment \(msn) is more than \(limit) parts past the playlist's last part (\(last))")
            }
        }
        let awaited: Awaited = part.map { .part(HLSPartPosition(msn: msn, part: $0)) } ?? .segment(msn)
        if Self.holds(awaited, playlist) { return .answer(delta: delta, blocking: true) }
        return .hold(until: awaited, timeoutSeconds: Self.timeoutSeconds(playlist), delta: delta)
    }

    /// Whether the playlist on disk lists what is awaited already.
    static func holds(_ awaited: Awaited, _ playlist: HLSPlaylistSummary) -> Bool {
        switch awaited {
        case .segment(let msn):
            return (playlist.lastSegment ?? -1) >= msn
        case .part(let position):
            if let last = playlist.lastPart, last >= position { return true }
            // A whole segment past the one asked for: every part of it exists.
            return (playlist.lastSegment ?? -1) > position.msn
        }
    }

    /// How far ahead of the last part a request may ask (the spec's Advance Part Limit): three
    /// parts, or three seconds' worth when parts are shorter than a second.
    public static func advancePartLimit(partTarget: Double?) -> Int {
        // Parts of at least 10 ms (the playlist summary reads no PART-TARGET that is not finite).
        guard let partTarget, partTarget >= 0.01, partTarget < 1 else { return 3 }
        return Int((3 / partTarget).rounded(.up))
    }

    /// Three target durations (the spec's limit before a 503), at least a second.
    public static func timeoutSeconds(_ playlist: HLSPlaylistSummary) -> Double {
        max(1, 3 * playlist.targetDuration)
    }
}

/// A playlist request the origin refuses with 400, and why.
public struct HLSRequestRefusal: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
