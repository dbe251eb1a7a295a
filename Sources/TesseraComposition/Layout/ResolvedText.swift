/// A text region's text and style, resolved: what the text renderer needs to draw it into a
/// region-sized picture. Hashable, so a rendered picture can be cached by it and reused when a
/// layout update keeps the text as it was.
public struct ResolvedText: Codable, Sendable, Equatable, Hashable {
    public var text: String
    /// Absolute path of a TTF / OTF / TTC font file.
    public var fontPath: String
    /// The font's pixel size (its em height in canvas pixels).
    public var fontSize: Double
    /// Ink colour; its alpha multiplies the glyphs' coverage.
    public var color: YUVColor
    public var align: TextAlign

    public init(text: String, fontPath: String, fontSize: Double, color: YUVColor, align: TextAlign) {
        self.text = text; self.fontPath = fontPath; self.fontSize = fontSize; self.color = color; self.align = align
    }

    /// The font used when a text region names none: DejaVu Sans from Debian's fonts-dejavu-core,
    /// which scripts/install.sh and the container image install.
    public static let defaultFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// `fontSize` when a text region names none.
    public static let defaultFontSize = 24.0
    /// Font sizes accepted, in pixels: below 4 no glyph is legible, above 512 one glyph fills a
    /// 720p canvas.
    public static let fontSizeRange = 4.0...512.0
    /// The longest text accepted (Unicode scalars): a caption, a score, a timer — not a document.
    public static let maxLength = 1000
}

/// Horizontal alignment of each wrapped line inside a text region.
public enum TextAlign: String, Codable, Sendable, Equatable, Hashable, CaseIterable {
    case left, center, right
}

/// `regions[].sourceCrop`: the part of the source picture a region shows, as fractions (0–1) of
/// the source's width and height; the render mode then crops, fits or stretches that part.
public struct SourceCrop: Codable, Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
