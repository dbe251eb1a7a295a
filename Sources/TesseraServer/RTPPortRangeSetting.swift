import Foundation

/// `--rtp-ports FIRST-LAST`: the UDP ports allocated RTP inputs are given. Each medium takes an
/// even RTP port and the odd RTCP port after it (RFC 3550 §11), so the range starts even and
/// holds at least one such pair; ports under 1024 would need root.
enum RTPPortRangeSetting {
    static let allowed = 1024...65535

    /// The range `text` names, or a message saying what is wrong with it.
    static func parse(_ text: String) -> Result<ClosedRange<Int>, ParseError> {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), let last = Int(parts[1]) else {
            return .failure(ParseError("expected FIRST-LAST, e.g. 20000-20999, got \"\(text)\""))
        }
        guard allowed.contains(first), allowed.contains(last) else {
            return .failure(ParseError("ports must be from \(allowed.lowerBound) to \(allowed.upperBound), got \(text)"))
        }
        guard first % 2 == 0 else {
            return .failure(ParseError("the first port must be even (RTP on even ports, RTCP on the next), got \(first)"))
        }
        guard last >= first + 1 else {
            return .failure(ParseError("the range must hold at least 2 ports (one RTP/RTCP pair), got \(text)"))
        }
        return .success(first...last)
    }

    struct ParseError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
