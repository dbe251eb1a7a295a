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
    ///
    /// What would only be painted over is left out: a region wholly under opaque regions above it
    /// is not drawn, and the background is painted only where no opaque region lies. Every canvas
    /// pixel is still written each frame (the canvas is reused), by the background or an opaque
    /// region.
    /// - Parameters:
    ///   - background: the layout's background image already scaled to the canvas size (it may have
    ///     an alpha plane), or nil.
    ///   - region: for the region at draw index `i`, what to draw there.
    public func compose(layout: ResolvedLayout, background: YUVImage?, into canvas: YUVImage,
                        region drawing: (_ drawIndex: Int) -> RegionPicture) {
        let canvasBounds = canvas.bounds
        let contents = layout.regions.indices.map(drawing)
        // Top-down: what the opaque regions above each one cover.
        var cover = OpaqueCover()
        var hidden = [Bool](repeating: false, count: layout.regions.count)
        for index in layout.regions.indices.reversed() {
            let region = layout.regions[index]
            let clip = region.rect.intersection(canvasBounds)
            if clip.isEmpty || region.alpha == 0 || cover.covers(clip) {
                hidden[index] = true
                continue
            }
            if Self.paintsWhole(clip, region: region, content: contents[index]) { cover.add(clip) }
        }
        for part in cover.uncovered(in: canvasBounds) {
            canvas.fill(part, with: layout.backgroundColor)
            if let background { canvas.draw(background, x: 0, y: 0, clip: part) }
        }
        for (index, region) in layout.regions.enumerated() where !hidden[index] {
            draw(region, content: contents[index], clip: region.rect.intersection(canvasBounds), into: canvas)
        }
    }

    private func draw(_ region: ResolvedRegion, content: RegionPicture, clip: PixelRect, into canvas: YUVImage) {
        let maskOrigin = (x: region.rect.x, y: region.rect.y)
        if let color = region.backgroundColor {
            let weight = UInt8(Blend.divide255(UInt32(color.alpha) * UInt32(region.alpha)))
            if let mask = content.mask {
                canvas.fill(clip, with: color, alpha: weight, mask: mask, maskOrigin: maskOrigin)
            } else {
                canvas.fill(clip, with: color, alpha: weight)
            }
        }
        guard let image = content.image else { return }
        let visible = Self.visibleArea(of: image, content: content, region: region, clip: clip)
        guard !visible.isEmpty else { return }
        let place = RegionPlacement.placement(region: region.rect, scaled: image.size,
                                              crop: content.cropped ? region.sourceCrop : nil)
        if let mask = content.mask {
            canvas.draw(image, x: place.x, y: place.y, clip: visible, alpha: region.alpha, mask: mask, maskOrigin: maskOrigin)
        } else {
            canvas.draw(image, x: place.x, y: place.y, clip: visible, alpha: region.alpha)
        }
    }

    /// The canvas pixels the picture lands on: where it is placed, inside its visible part and the clip.
    private static func visibleArea(of image: YUVImage, content: RegionPicture, region: ResolvedRegion, clip: PixelRect) -> PixelRect {
        let place = RegionPlacement.placement(region: region.rect, scaled: image.size, crop: content.cropped ? region.sourceCrop : nil)
        return PixelRect(x: place.x, y: place.y, width: image.width, height: image.height)
            .intersection(place.visible).intersection(clip)
    }

    /// Whether drawing `region` sets every pixel of `clip` without reading what lies below: fully
    /// opaque, no mask, and either an opaque background colour or an opaque picture over all of it.
    /// Only whole 2x2 blocks count, so the kernels' even-edge rounding cannot leave a pixel out.
    private static func paintsWhole(_ clip: PixelRect, region: ResolvedRegion, content: RegionPicture) -> Bool {
        guard region.alpha == 255, content.mask == nil, clip.evenInset == clip else { return false }
        if let color = region.backgroundColor, color.alpha == 255 { return true }
        guard let image = content.image, !image.hasAlpha else { return false }
        return visibleArea(of: image, content: content, region: region, clip: clip).evenInset == clip
    }
}
