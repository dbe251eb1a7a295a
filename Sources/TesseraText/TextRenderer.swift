import CFreeType
import TesseraComposition

/// Draws a text region's text into a picture of the region's size with FreeType: wrapped to the
/// width (`TextLines`), each line aligned, lines from the top, glyphs anti-aliased (FreeType's
/// 8-bit coverage), clipped to the region. The picture's Y'CbCr is the text colour everywhere and
/// its alpha plane is the coverage times the colour's alpha, so the compositor blends it like an
/// image region (under the region's `alpha`, mask and z-order).
///
/// Rendering is done once per layout change, never per frame: the engine caches the picture by
/// text, style and size.
///
/// Threads: one renderer per thread (its fonts hold FreeType state).
public final class TextRenderer {
    private var faces: [String: FontFace] = [:]

    public init() {}

    /// The text of `text` drawn into a `size` picture (even sides) with an alpha plane.
    public func render(_ text: ResolvedText, size: PixelSize) throws -> YUVImage {
        let face = try face(text.fontPath)
        try face.setPixelSize(text.fontSize)
        let coverage = CoverageBuffer(width: size.width, height: size.height)
        var advances: [UInt32: Int] = [:]
        func advance(_ glyph: UInt32) -> Int {
            if let known = advances[glyph] { return known }
            let value = face.load(glyph, render: false).map { Int($0.pointee.advance.x) } ?? 0
            advances[glyph] = value
            return value
        }
        // Width of a run in whole pixels: advances and kerning summed in 26.6, rounded once.
        func measure(_ scalars: [Unicode.Scalar]) -> Int {
            var total = 0, previous: UInt32 = 0
            for scalar in scalars {
                let glyph = face.glyphIndex(scalar)
                total += face.kerning(previous, glyph) + advance(glyph)
                previous = glyph
            }
            return (total + 32) >> 6
        }
        let lines = TextLines.wrap(text.text, maxWidth: size.width, measure: measure)
        let metrics = face.lineMetrics
        for (index, line) in lines.enumerated() {
            let baseline = (metrics.ascender + index * metrics.height + 32) >> 6
            if baseline - (metrics.ascender >> 6) >= size.height { break } // below the region: clipped
            var pen = TextLines.startX(lineWidth: measure(line), boxWidth: size.width, align: text.align) << 6
            var previous: UInt32 = 0
            for scalar in line {
                let glyph = face.glyphIndex(scalar)
                pen += face.kerning(previous, glyph)
                previous = glyph
                guard let slot = face.load(glyph, render: true) else { continue }
                coverage.add(slot.pointee.bitmap, x: (pen >> 6) + Int(slot.pointee.bitmap_left),
                             y: baseline - Int(slot.pointee.bitmap_top))
                pen += Int(slot.pointee.advance.x)
            }
        }
        return coverage.picture(color: text.color)
    }

    private func face(_ path: String) throws -> FontFace {
        if let face = faces[path] { return face }
        let face = try FontFace(path: path)
        faces[path] = face
        return face
    }
}
