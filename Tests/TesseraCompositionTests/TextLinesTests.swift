import Testing
import TesseraComposition

/// Line breaking for text regions, with every character 10 pixels wide.
@Suite struct TextLinesTests {
    static func wrap(_ text: String, _ width: Int) -> [String] {
        TextLines.wrap(text, maxWidth: width, measure: { $0.count * 10 }).map { String(String.UnicodeScalarView($0)) }
    }

    @Test func breaksAtSpaces() {
        #expect(Self.wrap("hello world", 60) == ["hello", "world"])
        #expect(Self.wrap("hello world", 110) == ["hello world"])
        #expect(Self.wrap("a b c", 1000) == ["a b c"])
        #expect(Self.wrap("one  two three", 80) == ["one  two", "three"])
    }

    @Test func breaksLongWordsBetweenCharacters() {
        #expect(Self.wrap("abcdefghij", 35) == ["abc", "def", "ghi", "j"])
        #expect(Self.wrap("ab abcdefgh", 40) == ["ab", "abcd", "efgh"])
        // Narrower than one glyph: one character a line, clipped by the region.
        #expect(Self.wrap("abc", 5) == ["a", "b", "c"])
    }

    @Test func breaksBetweenCJKCharacters() {
        #expect(Self.wrap("你好世界", 20) == ["你好", "世界"])
        #expect(Self.wrap("PK 比分3:1", 45) == ["PK 比", "分3:1"])
    }

    @Test func keepsHardBreaksAndBlankLines() {
        #expect(Self.wrap("a\n\nb", 100) == ["a", "", "b"])
        #expect(Self.wrap("a\r\nb\rc", 100) == ["a", "b", "c"])
        #expect(Self.wrap("", 100) == [""])
    }

    @Test func alignment() {
        #expect(TextLines.startX(lineWidth: 30, boxWidth: 100, align: .left) == 0)
        #expect(TextLines.startX(lineWidth: 30, boxWidth: 100, align: .center) == 35)
        #expect(TextLines.startX(lineWidth: 30, boxWidth: 100, align: .right) == 70)
        #expect(TextLines.startX(lineWidth: 130, boxWidth: 100, align: .right) == 0)
    }
}
