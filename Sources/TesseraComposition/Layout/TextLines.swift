/// Breaks a text region's text into lines that fit its width: hard breaks at `\n`, soft breaks
/// after spaces and on either side of a CJK character (those scripts write no spaces), and a word
/// wider than the whole line broken between characters. Greedy, as captions and watermarks are.
///
/// Pure: the width of a run of characters comes from `measure` (the font's advances and kerning,
/// in whole pixels), so the rules are tested without a font.
public enum TextLines {
    /// The lines of `text` for a box `maxWidth` pixels wide, each without its trailing spaces.
    /// Every line holds at least one character, so text in a box narrower than one glyph still
    /// shows (clipped) rather than vanishing.
    public static func wrap(_ text: String, maxWidth: Int, measure: ([Unicode.Scalar]) -> Int) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        let normalised = text.replacingCRLF()
        for paragraph in normalised.split(separator: "\n", omittingEmptySubsequences: false) {
            let scalars = paragraph.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" }.map { $0 == "\t" ? " " : $0 }
            lines += wrapParagraph(Array(scalars), maxWidth: maxWidth, measure: measure)
        }
        return lines
    }

    private static func wrapParagraph(_ scalars: [Unicode.Scalar], maxWidth: Int,
                                      measure: ([Unicode.Scalar]) -> Int) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        var line: [Unicode.Scalar] = []
        for token in tokens(scalars) {
            // Spaces that would start a line are dropped: a wrapped line begins with its word.
            let piece = line.isEmpty ? Array(token.drop { $0 == " " }) : token
            guard !piece.isEmpty else { continue }
            let candidate = line + piece
            if measure(trimmed(candidate)) <= maxWidth {
                line = candidate
                continue
            }
            if !line.isEmpty {
                lines.append(trimmed(line))
                line = []
            }
            // The token alone, broken between characters where it is wider than a line.
            for scalar in piece.drop(while: { $0 == " " }) {
                if !line.isEmpty && measure(trimmed(line + [scalar])) > maxWidth {
                    lines.append(trimmed(line))
                    line = []
                }
                if line.isEmpty && scalar == " " { continue }
                line.append(scalar)
            }
        }
        lines.append(trimmed(line))
        return lines
    }

    /// Runs that may not be broken inside: a word with the spaces after it, or one CJK character.
    static func tokens(_ scalars: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
        var tokens: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        for scalar in scalars {
            if isCJK(scalar) {
                if !current.isEmpty { tokens.append(current); current = [] }
                tokens.append([scalar])
            } else if scalar != " ", current.last == " " {
                tokens.append(current)
                current = [scalar]
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    private static func trimmed(_ line: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var end = line.count
        while end > 0 && line[end - 1] == " " { end -= 1 }
        return Array(line[..<end])
    }

    /// Scripts written without spaces, where a line may break between any two characters:
    /// CJK punctuation, kana, CJK ideographs (and extension A), Hangul syllables, full-width forms.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF,
             0xFF00...0xFFEF, 0x20000...0x2FA1F:
            return true
        default:
            return false
        }
    }

    /// Where each line starts, for `align`, in a box `boxWidth` wide: left 0, right the free
    /// space, centre half of it (rounded down); a line wider than the box starts at 0.
    public static func startX(lineWidth: Int, boxWidth: Int, align: TextAlign) -> Int {
        let free = max(0, boxWidth - lineWidth)
        switch align {
        case .left: return 0
        case .center: return free / 2
        case .right: return free
        }
    }
}

private extension String {
    /// `\r\n` and lone `\r` as `\n`.
    func replacingCRLF() -> String {
        var result = String.UnicodeScalarView()
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" { result.append("\n"); previousCR = true; continue }
            if scalar == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            result.append(scalar)
        }
        return String(result)
    }
}
