/// The coverage masks of the layout being drawn, one per region (by its document index), built
/// when a region first needs one and rebuilt only when its size, corner radius or mask image
/// changes — so a layout update that moves nothing (a text change, a volume) builds no mask.
///
/// Threads: owned by the output thread, like the compositor.
public final class CoverageMaskCache {
    private struct Key: Equatable {
        var size: PixelSize
        var cornerRadius: Int
        var maskImage: String?
    }
    private var entries: [Int: (key: Key, mask: CoverageMask)] = [:]

    public init() {}

    /// The mask of `region`, or nil when it has square corners and no mask image. `shape` gives
    /// the mask image scaled to the region's size (its alpha plane is the shape; an image without
    /// alpha masks nothing); it is called only when the mask is (re)built.
    public func mask(for region: ResolvedRegion, shape: (PixelSize) throws -> YUVImage?) rethrows -> CoverageMask? {
        guard region.isMasked, !region.rect.isEmpty else { return nil }
        let size = PixelSize(width: region.rect.width, height: region.rect.height)
        let key = Key(size: size, cornerRadius: region.cornerRadius ?? 0, maskImage: region.maskImage)
        if let entry = entries[region.documentIndex], entry.key == key { return entry.mask }
        let image = region.maskImage == nil ? nil : try shape(size)
        let mask = CoverageMask(width: size.width, height: size.height, cornerRadius: key.cornerRadius,
                                shape: image?.alphaPlane)
        entries[region.documentIndex] = (key, mask)
        return mask
    }
}
