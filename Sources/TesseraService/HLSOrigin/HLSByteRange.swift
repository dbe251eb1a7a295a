import Foundation

/// A `Range` request for a media file the origin serves (RFC 9110 §14): what to answer. A CDN
/// may fetch a large segment in pieces, and a player asks byte ranges of a playlist's
/// `EXT-X-BYTERANGE` media. One range is served (206); a header that is not one plain byte range
/// (several ranges, another unit, garbage) is ignored and the whole file sent, as the RFC lets a
/// server do; a range that starts past the end is 416. Pure.
public enum HLSByteRange: Sendable, Equatable {
    /// Send the whole file (200).
    case whole
    /// Send these bytes (206, `Content-Range: bytes first-last/length`).
    case part(first: Int, last: Int)
    /// 416, `Content-Range: bytes */length`.
    case unsatisfiable

    /// The answer to `header` for a file of `length` bytes.
    public static func decide(_ header: String?, length: Int) -> HLSByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let start = spec[..<dash], end = spec[spec.index(after: dash)...]
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(text)
        }
        if start.isEmpty {
            // `bytes=-N`: the last N bytes.
            guard let suffix = number(end) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .part(first: max(0, length - suffix), last: length - 1)
        }
        guard let first = number(start) else { return .whole }
        if end.isEmpty {
            return first < length ? .part(first: first, last: length - 1) : .unsatisfiable
        }
        guard let last = number(end), last >= first else { return .whole }
        return first < length ? .part(first: first, last: min(last, length - 1)) : .unsatisfiable
    }

    /// The `Content-Range` of this answer for a file of `length` bytes (nil for the whole file).
    public func contentRange(length: Int) -> String? {
        switch self {
        case .whole: nil
        case .part(let first, let last): "bytes \(first)-\(last)/\(length)"
        case .unsatisfiable: "bytes */\(length)"
        }
    }
}
