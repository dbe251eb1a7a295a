import CFreeType

/// One font file opened with FreeType: its own `FT_Library` (FreeType libraries are not shared
/// between threads) and the face, both freed in `deinit`.
///
/// Threads: used by one thread at a time (the thread that prepares a layout's pictures).
final class FontFace {
    let path: String
    private let library: FT_Library
    let face: FT_Face

    init(path: String) throws {
        self.path = path
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw TextRenderingError("cannot start FreeType") }
        var face: FT_Face?
        let status = FT_New_Face(library, path, 0, &face)
        guard status == 0, let face else {
            FT_Done_FreeType(library)
            throw TextRenderingError("cannot open font \(path) (FreeType error \(status))")
        }
        self.library = library
        self.face = face
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Sets the em size in pixels (26.6 fixed point, so fractional sizes work).
    func setPixelSize(_ size: Double) throws {
        let status = FT_Set_Char_Size(face, 0, FT_F26Dot6((size * 64).rounded()), 72, 72)
        if status != 0 { throw TextRenderingError("font \(path) has no size \(size) (FreeType error \(status))") }
    }

    /// Line metrics at the current size, in 26.6 units: ascender (baseline below the line's top)
    /// and the distance between baselines.
    var lineMetrics: (ascender: Int, height: Int) {
        let metrics = face.pointee.size.pointee.metrics
        return (Int(metrics.ascender), Int(metrics.height))
    }

    func glyphIndex(_ scalar: Unicode.Scalar) -> UInt32 { FT_Get_Char_Index(face, FT_ULong(scalar.value)) }

    var hasKerning: Bool { tessera_ft_has_kerning(face) != 0 }

    /// Horizontal kerning between two glyphs at the current size (26.6).
    func kerning(_ left: UInt32, _ right: UInt32) -> Int {
        guard left != 0, right != 0, hasKerning else { return 0 }
        var delta = FT_Vector()
        guard FT_Get_Kerning(face, left, right, UInt32(FT_KERNING_DEFAULT.rawValue), &delta) == 0 else { return 0 }
        return Int(delta.x)
    }

    /// Loads a glyph (rendered to its coverage bitmap when `render`); the glyph slot is valid
    /// until the next load.
    func load(_ glyph: UInt32, render: Bool) -> FT_GlyphSlot? {
        let flags = render ? tessera_ft_load_render() : tessera_ft_load_default()
        guard FT_Load_Glyph(face, glyph, flags) == 0 else { return nil }
        return face.pointee.glyph
    }
}

/// A font or glyph that could not be drawn.
public struct TextRenderingError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
