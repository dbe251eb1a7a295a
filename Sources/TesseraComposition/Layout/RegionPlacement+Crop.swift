/// `sourceCrop`: the render mode works on the cropped part of the source, so the crop is folded
/// into the scale. The whole source picture is scaled to the size at which its cropped part has
/// the render mode's size for the region (`scaledSize(source:crop:region:mode:)`), and the
/// compositor draws it shifted so that the cropped part lands where the render mode puts a picture
/// of that size, clipped to that part and to the region (`placement(region:scaled:crop:)`).
///
/// Why not crop in the scaler: scaling the whole picture keeps the input side unchanged (one
/// scaled picture per draw size, whatever the regions crop), at the cost of scaling pixels that are
/// then not shown; `maxCroppedSourceSide` bounds that cost.
extension RegionPlacement {
    /// The largest side the whole source is scaled to for a crop (8K). A crop that would need more
    /// is drawn at this scale, smaller than the render mode asks, centred as the mode places it.
    public static let maxCroppedSourceSide = 7680

    /// The even size the whole `source` picture is scaled to so that its `crop` part has the size
    /// `scaledSize(source: croppedSize, region:, mode:)`; without a crop, `scaledSize(source:region:mode:)`.
    ///
    /// Cropped size `C = round(S · c)` (at least 1); its draw size `P` by the render mode; then the
    /// whole picture `F = P / c` rounded to the nearest even number, so `F · c` rounds back to `P`.
    public static func scaledSize(source: PixelSize, crop: SourceCrop?, region: PixelSize, mode: RenderMode) -> PixelSize {
        guard let crop else { return scaledSize(source: source, region: region, mode: mode) }
        let cropped = PixelSize(width: max(1, Int((Double(source.width) * crop.width).rounded())),
                                height: max(1, Int((Double(source.height) * crop.height).rounded())))
        let part = scaledSize(source: cropped, region: region, mode: mode)
        var width = Double(part.width) / crop.width, height = Double(part.height) / crop.height
        let excess = max(width, height) / Double(maxCroppedSourceSide)
        if excess > 1 { width /= excess; height /= excess }
        return PixelSize(width: max(2, nearestEven(width)), height: max(2, nearestEven(height)))
    }

    /// Where a picture of size `scaled` goes for a region, and the canvas rectangle it may cover:
    /// without a crop, `origin(region:scaled:)` and the region; with one, the picture shifted so
    /// that its cropped part (`x = evenFloor(round(F.w · c.x))`, width `nearestEven(F.w · c.w)`,
    /// same for y) sits where the render mode puts a picture of that part's size, and the visible
    /// rectangle is that part ∩ the region.
    public static func placement(region: PixelRect, scaled: PixelSize, crop: SourceCrop?) -> (x: Int, y: Int, visible: PixelRect) {
        guard let crop else {
            let origin = origin(region: region, scaled: scaled)
            return (origin.x, origin.y, region)
        }
        let offsetX = evenFloor(Int((Double(scaled.width) * crop.x).rounded()))
        let offsetY = evenFloor(Int((Double(scaled.height) * crop.y).rounded()))
        let part = PixelSize(width: max(2, min(scaled.width - offsetX, nearestEven(Double(scaled.width) * crop.width))),
                             height: max(2, min(scaled.height - offsetY, nearestEven(Double(scaled.height) * crop.height))))
        let partOrigin = origin(region: region, scaled: part)
        let visible = PixelRect(x: partOrigin.x, y: partOrigin.y, width: part.width, height: part.height).intersection(region)
        return (partOrigin.x - offsetX, partOrigin.y - offsetY, visible)
    }

    /// `value` rounded to the nearest even integer (ties up), for positive values.
    static func nearestEven(_ value: Double) -> Int { 2 * Int((value / 2).rounded(.toNearestOrAwayFromZero)) }
}
