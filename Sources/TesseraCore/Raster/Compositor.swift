/// What the compositor draws for one region at one output frame: its picture (if any), whether
/// the region's `sourceCrop` applies to it, and its coverage mask (if it has one).
public struct RegionPicture {
    /// Already scaled to `RegionPlacement.scaledSize(source:crop:region:mode:)` (or to the region,
    /// for text); nil when there is nothing to draw (no video and no placeholder).
    public var image: YUVImage?
    /// True for the input's video and a region's image; false for a placeholder, which is shown
    /// whole.
    public var cropped: Bool
    /// The region's shape (rounded corners, mask image), or nil for a plain rectangle.
    public var mask: CoverageMask?

    public init(image: YUVImage?, cropped: Bool = true, mask: CoverageMask? = nil) {
        self.image = image; self.cropped = cropped; self.mask = mask
    }
}

/// Draws one output frame from a resolved layout: the background colour, the background image,
/// then every region bottom-first. It does no scaling: the caller hands it pictures already scaled
/// to `RegionPlacement.scaledSize(...)`, and the compositor places, clips and blends them.
///
/// Per region (in `layout.regions` order, which is draw order):
/// 1. `clip = region.rect ∩ canvas`; nothing is drawn for an empty clip or `region.alpha == 0`;
/// 2. the region's `backgroundColor`, if any, over `clip` with weight `color.alpha · region.alpha / 255`;
/// 3. the region's picture, if any, at `RegionPlacement.placement(region:scaled:crop:)`, clipped to
///    `clip` and to the cropped part, with weight `region.alpha · A / 255` (`A` = the picture's
///    alpha sample, 255 without an alpha plane).
/// With a coverage mask, steps 2 and 3 weigh each pixel by the mask's `M / 255` as well, so
/// rounded corners and mask shapes show what lies below, the region's background included.
///
/// Threads: one compositor belongs to one pipeline's output thread. It keeps no state between
/// frames today; it is a class so per-frame scratch (e.g. row bands for parallel work) can be added
/// without changing callers.
public final class Compositor {
    public init() {}

    /// Composes a frame into `canvas` (the output size) from plain pictures: each is cropped by
    /// its region's `sourceCrop` and drawn without a mask.
    public func compose(layout: ResolvedLayout, background: YUVImage?, into canvas: YUVImage,
                        picture: (_ drawIndex: Int) -> YUVImage?) {
        compose(layout: layout, background: background, into: canvas, region: { RegionPicture(image: picture($0)) })
    }

    /// Composes a frame into `canvas` (the output size).
    /// - Parameters:
    ///   - background: the layout's background image already scaled to the canvas size (it may have
    ///     an alpha plane), or nil.
    ///   - region: for the region at draw index `i`, what to draw there.
    public func compose(layout: ResolvedLayout, background: YUVImage?, into canvas: YUVImage,
                        region drawing: (_ drawIndex: Int) -> RegionPicture) {
        canvas.fill(layout.backgroundColor)
        if let background { canvas.draw(background, x: 0, y: 0) }
        let canvasBounds = canvas.bounds
        for (index, region) in layout.regions.enumerated() {
            let clip = region.rect.intersection(canvasBounds)
            guard !clip.isEmpty, region.alpha > 0 else { continue }
            let content = drawing(index)
            let maskOrigin = (x: region.rect.x, y: region.rect.y)
            if let color = region.backgroundColor {
                let weight = UInt8(Blend.divide255(UInt32(color.alpha) * UInt32(region.alpha)))
                if let mask = content.mask {
                    canvas.fill(clip, with: color, alpha: weight, mask: mask, maskOrigin: maskOrigin)
                } else {
                    canvas.fill(clip, with: color, alpha: weight)
                }
            }
            guard let image = content.image else { continue }
            let place = RegionPlacement.placement(region: region.rect, scaled: image.size,
                                                  crop: content.cropped ? region.sourceCrop : nil)
            let visible = place.visible.intersection(clip)
            guard !visible.isEmpty else { continue }
            if let mask = content.mask {
                canvas.draw(image, x: place.x, y: place.y, clip: visible, alpha: region.alpha, mask: mask, maskOrigin: maskOrigin)
            } else {
                canvas.draw(image, x: place.x, y: place.y, clip: visible, alpha: region.alpha)
            }
        }
    }
}
