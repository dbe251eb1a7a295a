/// The sizes a layout draws an input's pictures at: what the input side scales each picture to,
/// and what an SFU reads (`inputs[].drawSize`) to forward the smallest simulcast layer that still
/// fills the input's largest region.
extension ResolvedLayout {
    /// The sizes of the regions showing input `inputIndex`: the whole picture's scaled size
    /// (`RegionPlacement.scaledSize(source:crop:region:mode:)`) for a picture of `displaySize`.
    /// Before the first picture (`displaySize` nil) nothing is known to scale, so each region's own
    /// even size stands in.
    public func drawSizes(inputIndex: Int, displaySize: PixelSize?) -> Set<PixelSize> {
        var sizes = Set<PixelSize>()
        for region in regions {
            guard case .input(let index) = region.content, index == inputIndex else { continue }
            let regionSize = PixelSize(width: region.rect.width, height: region.rect.height)
            guard let displaySize else {
                sizes.insert(RegionPlacement.scaledSize(source: regionSize, region: regionSize, mode: .stretch))
                continue
            }
            sizes.insert(RegionPlacement.scaledSize(source: displaySize, crop: region.sourceCrop, region: regionSize,
                                                    mode: region.renderMode))
        }
        return sizes
    }

    /// The largest of `drawSizes` by area (the wider on a tie), or nil when the input is in no region.
    public func largestDrawSize(inputIndex: Int, displaySize: PixelSize?) -> PixelSize? {
        drawSizes(inputIndex: inputIndex, displaySize: displaySize).max { a, b in
            (a.width * a.height, a.width) < (b.width * b.height, b.width)
        }
    }
}
