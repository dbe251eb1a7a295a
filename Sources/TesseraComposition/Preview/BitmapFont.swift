/// A built-in 5x7 pixel font for labelling previews, so `tessera preview` needs no font files.
/// Each glyph cell is 6x8 font pixels (one column and one row of spacing); at `scale` s every font
/// pixel is an s×s block.
public enum BitmapFont {
    public static let glyphWidth = 5
    public static let glyphHeight = 7
    /// Horizontal distance between glyph origins, in font pixels.
    public static let advance = 6

    /// Glyph bitmaps: 7 rows, bit 4 = leftmost column. Built once from `glyphRows`.
    static let glyphs: [Character: [UInt8]] = glyphRows.mapValues { rows in
        rows.map { row in row.reduce(UInt8(0)) { bits, char in bits << 1 | (char == "#" ? 1 : 0) } }
    }

    /// The bitmap for `character`: lower case as upper case, unknown characters as `?`.
    static func glyph(_ character: Character) -> [UInt8] {
        if let glyph = glyphs[character] { return glyph }
        if let upper = character.uppercased().first, let glyph = glyphs[upper] { return glyph }
        return glyphs["?"]!
    }

    /// The size `text` takes at `scale`, in pixels (no trailing spacing).
    public static func size(of text: String, scale: Int) -> PixelSize {
        let count = text.count
        return PixelSize(width: count == 0 ? 0 : (count * advance - 1) * scale, height: glyphHeight * scale)
    }

    /// Draws `text` (one line) with its top-left at `origin`, each font pixel an s×s block of
    /// `color`, only inside `clip` (default: the whole image). Chroma is written for every 2x2
    /// block that holds ink, so coloured text keeps its colour at any scale.
    public static func draw(text: String, at origin: (x: Int, y: Int), scale: Int, color: YUVColor,
                            into image: YUVImage, clip: PixelRect? = nil) {
        let s = max(1, scale)
        let area = clip.map { $0.intersection(image.bounds) } ?? image.bounds
        guard !area.isEmpty else { return }
        let luma = image.lumaPlane, cb = image.cbPlane, cr = image.crPlane
        var penX = origin.x
        for character in text {
            let rows = glyph(character)
            for (row, bits) in rows.enumerated() where bits != 0 {
                for column in 0..<glyphWidth where bits & (1 << (glyphWidth - 1 - column)) != 0 {
                    let block = PixelRect(x: penX + column * s, y: origin.y + row * s, width: s, height: s)
                        .intersection(area)
                    guard !block.isEmpty else { continue }
                    Blend.fill(luma, rect: block, value: color.y)
                    // Chroma samples touched by the block: x/2 ... (maxX − 1)/2.
                    let chroma = PixelRect(x: block.x / 2, y: block.y / 2,
                                           width: (block.maxX - 1) / 2 - block.x / 2 + 1,
                                           height: (block.maxY - 1) / 2 - block.y / 2 + 1)
                    Blend.fill(cb, rect: chroma, value: color.u)
                    Blend.fill(cr, rect: chroma, value: color.v)
                }
            }
            penX += advance * s
        }
    }
}
