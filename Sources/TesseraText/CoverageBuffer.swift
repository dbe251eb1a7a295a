import CFreeType
import TesseraComposition

/// The ink of a text region as 8-bit coverage, glyph bitmaps added in with clipping, then turned
/// into a picture of one colour whose alpha is that coverage.
final class CoverageBuffer {
    let width: Int
    let height: Int
    private let pixels: UnsafeMutablePointer<UInt8>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height)
        pixels.initialize(repeating: 0, count: width * height)
    }

    deinit { pixels.deallocate() }

    /// Adds a FreeType 8-bit grey bitmap with its top-left at (x, y), clipped to the buffer.
    /// Overlapping ink (kerned pairs, accents) adds up, saturating at 255.
    func add(_ bitmap: FT_Bitmap, x: Int, y: Int) {
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue), let buffer = bitmap.buffer else { return }
        let rows = Int(bitmap.rows), columns = Int(bitmap.width), pitch = Int(bitmap.pitch)
        let firstRow = max(0, -y), lastRow = min(rows, height - y)
        let firstColumn = max(0, -x), lastColumn = min(columns, width - x)
        guard firstRow < lastRow, firstColumn < lastColumn else { return }
        for row in firstRow..<lastRow {
            // A negative pitch means the bitmap is stored bottom-up.
            let source = pitch >= 0 ? buffer + row * pitch : buffer + (rows - 1 - row) * -pitch
            let destination = pixels + (y + row) * width + x
            for column in firstColumn..<lastColumn {
                destination[column] = UInt8(min(255, Int(destination[column]) + Int(source[column])))
            }
        }
    }

    /// A picture of `color` whose alpha is the coverage times the colour's alpha.
    func picture(color: YUVColor) -> YUVImage {
        let image = YUVImage(width: width, height: height, hasAlpha: true)
        image.fill(YUVColor(y: color.y, u: color.u, v: color.v, alpha: 0))
        guard let alpha = image.a else { return image }
        let colorAlpha = UInt32(color.alpha)
        for row in 0..<height {
            let source = pixels + row * width, destination = alpha + row * image.lumaStride
            for column in 0..<width {
                destination[column] = UInt8(Blend.divide255(UInt32(source[column]) * colorAlpha))
            }
        }
        return image
    }
}
