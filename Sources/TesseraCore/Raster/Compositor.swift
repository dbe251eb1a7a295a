/// Draws one output frame from a resolved layout: the background colour, the background image,
/// then every region bottom-first. It does no scaling: the caller hands it pictures already scaled
/// to `RegionPlacement.scaledSize(...)`, and the compositor places, clips and blends them.
///
/// Per region (in `layout.regions` order, which is draw order):
/// 1. `clip = region.rect ∩ canvas`; nothing is drawn for an empty clip or `region.alpha == 0`;
/// 2. the region's `backgroundColor`, if any, over `clip` with weight `color.alpha · region.alpha / 255`;
/// 3. the region's picture, if any, at `RegionPlacement.origin(region:scaled:)`, clipped to `clip`,
///    with weight `region.alpha · A / 255` (`A` = the picture's alpha sample, 255 without an alpha plane).
///
/// Threads: one compositor belongs to one pipeline's output thread. It keeps no state between
/// frames today; it is a class so per-frame scratch (e.g. row bands for parallel work) can be added
/// without changing callers.
public final class Compositor {
    public init() {}

    /// Composes a frame into `canvas` (the output size).
    /// - Parameters:
    ///   - background: the layout's background image already scaled to the canvas size (it may have
    ///     an alpha plane), or nil.
    ///   - picture: for the region at draw index `i`, its picture already scaled to that region's
    ///     `RegionPlacement.scaledSize`, or nil when there is nothing to draw (no video and no placeholder).
    public func compose(layout: ResolvedLayout, background: YUVImage?, into canvas: YUVImage,
                        picture: (_ drawIndex: Int) -> YUVImage?) {
        canvas.fill(layout.backgroundColor)
        if let background { canvas.draw(background, x: 0, y: 0) }
        let canvasBounds = canvas.bounds
        for (index, region) in layout.regions.enumerated() {
            let clip = region.rect.intersection(canvasBounds)
            guard !clip.isEmpty, region.alpha > 0 else { continue }
            if let color = region.backgroundColor {
                canvas.fill(clip, with: color, alpha: UInt8(Blend.divide255(UInt32(color.alpha) * UInt32(region.alpha))))
            }
            guard let image = picture(index) else { continue }
            let origin = RegionPlacement.origin(region: region.rect, scaled: image.size)
            canvas.draw(image, x: origin.x, y: origin.y, clip: clip, alpha: region.alpha)
        }
    }
}
