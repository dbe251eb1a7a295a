/// A picture of a layout for people: where each region goes, in draw order, without any media.
/// `tessera preview` and the API's preview endpoint encode it to PNG.
///
/// Each region (in draw order, so later ones cover earlier ones as they would in the mix) is a
/// box in its own palette colour: a translucent fill, a 2-pixel opaque border along the edges of
/// its rectangle that lie on the canvas, and, at the top-left of its visible part, its number
/// (draw index + 1) and label in white on a dark backing box. A region with a `cornerRadius` is
/// drawn with its rounded corners (fill and border through its coverage mask); one with a
/// `maskImage` (which a preview does not read) gets a dashed border; text regions are labelled
/// with their text.
public enum LayoutPreview {
    /// Eight colours that are easy to tell apart, as R'G'B'; region i uses `palette[i % 8]`.
    public static let palette: [YUVColor] = [
        YUVColor(red: 0xE6, green: 0x19, blue: 0x4B), // red
        YUVColor(red: 0x3C, green: 0xB4, blue: 0x4B), // green
        YUVColor(red: 0x43, green: 0x63, blue: 0xD8), // blue
        YUVColor(red: 0xFF, green: 0xE1, blue: 0x19), // yellow
        YUVColor(red: 0xF5, green: 0x82, blue: 0x31), // orange
        YUVColor(red: 0x91, green: 0x1E, blue: 0xB4), // purple
        YUVColor(red: 0x42, green: 0xD4, blue: 0xF4), // cyan
        YUVColor(red: 0xF0, green: 0x32, blue: 0xE6), // magenta
    ]
    /// Opacity of a region's fill (about 40 %), so overlaps and the background show through.
    public static let fillAlpha: UInt8 = 102
    public static let borderWidth = 2
    static let textColor = YUVColor(red: 255, green: 255, blue: 255)
    static let backingColor = YUVColor(red: 0x18, green: 0x18, blue: 0x18)

    /// Font scale for a canvas: ×3 from 900 lines up, else ×2.
    public static func textScale(canvasHeight: Int) -> Int { canvasHeight >= 900 ? 3 : 2 }

    /// Renders `layout`; `labels[i]` names `layout.regions[i]` (missing labels draw the number only).
    public static func render(layout: ResolvedLayout, labels: [String]) -> YUVImage {
        let canvas = YUVImage(width: layout.canvasWidth, height: layout.canvasHeight)
        canvas.fill(layout.backgroundColor)
        let bounds = canvas.bounds
        let scale = textScale(canvasHeight: layout.canvasHeight)
        for (index, region) in layout.regions.enumerated() {
            let rect = region.rect
            let visible = rect.intersection(bounds)
            guard !visible.isEmpty else { continue }
            let color = palette[index % palette.count]
            if let radius = region.cornerRadius {
                drawRounded(rect: rect, radius: radius, color: color, on: canvas)
            } else {
                canvas.fill(visible, with: color, alpha: fillAlpha)
                drawBorder(rect: rect, color: color, dashed: region.maskImage != nil, on: canvas)
            }
            let label = index < labels.count && !labels[index].isEmpty ? "\(index + 1) \(labels[index])" : "\(index + 1)"
            drawLabel(label, in: visible, scale: scale, on: canvas)
        }
        return canvas
    }

    /// The label on its dark backing box, inside the border at the top-left of `box`, clipped to `box`.
    static func drawLabel(_ text: String, in box: PixelRect, scale: Int, on canvas: YUVImage) {
        let padding = 2 * scale
        let textSize = BitmapFont.size(of: text, scale: scale)
        let backing = PixelRect(x: box.x + borderWidth, y: box.y + borderWidth,
                                width: RegionPlacement.evenCeil(textSize.width + 2 * padding),
                                height: RegionPlacement.evenCeil(textSize.height + 2 * padding))
        let inside = PixelRect(x: box.x + borderWidth, y: box.y + borderWidth,
                               width: box.width - 2 * borderWidth, height: box.height - 2 * borderWidth)
        guard !inside.isEmpty else { return }
        canvas.fill(backing.intersection(inside), with: backingColor)
        BitmapFont.draw(text: text, at: (backing.x + padding, backing.y + padding), scale: scale,
                        color: textColor, into: canvas, clip: inside)
    }
}
