/// `fill` and `draw` through a region's `CoverageMask`: the same clipping as the plain operations
/// (to this picture and to even edges), then the masked kernels. The mask covers the region whose
/// top-left is `maskOrigin` (even) on this picture: canvas pixel (x, y) reads mask value
/// (x − maskOrigin.x, y − maskOrigin.y); callers clip to the region, so every read is inside it.
extension YUVImage {
    /// Paints `color` over `rect` (inside the mask's region) with weight `alpha · M / 255`.
    public func fill(_ rect: PixelRect, with color: YUVColor, alpha: UInt8, mask: CoverageMask, maskOrigin: (x: Int, y: Int)) {
        let area = rect.intersection(bounds).evenInset
        guard !area.isEmpty, alpha > 0 else { return }
        let maskX = area.x - maskOrigin.x, maskY = area.y - maskOrigin.y
        let chroma = area.halved
        let plane = mask.plane
        Blend.fill(lumaPlane, rect: area, value: color.y, alpha: alpha, mask: plane, maskX: maskX, maskY: maskY)
        Blend.fillChroma(cbPlane, rect: chroma, value: color.u, alpha: alpha, mask: plane, maskX: maskX / 2, maskY: maskY / 2)
        Blend.fillChroma(crPlane, rect: chroma, value: color.v, alpha: alpha, mask: plane, maskX: maskX / 2, maskY: maskY / 2)
    }

    /// Draws `picture` with its top-left at (`x`, `y`) (even), only inside `clip` (which must lie
    /// inside the mask's region), each pixel weighted `alpha · round(A·M / 255) / 255`.
    public func draw(_ picture: YUVImage, x: Int, y: Int, clip: PixelRect, alpha: UInt8,
                     mask: CoverageMask, maskOrigin: (x: Int, y: Int)) {
        guard alpha > 0 else { return }
        let area = PixelRect(x: x, y: y, width: picture.width, height: picture.height)
            .intersection(bounds).intersection(clip).evenInset
        guard !area.isEmpty else { return }
        let sourceX = area.x - x, sourceY = area.y - y
        let maskX = area.x - maskOrigin.x, maskY = area.y - maskOrigin.y
        let chroma = area.halved
        let plane = mask.plane, pictureAlpha = picture.alphaPlane
        Blend.blend(from: picture.lumaPlane, alphaPlane: pictureAlpha, sourceX: sourceX, sourceY: sourceY,
                    to: lumaPlane, rect: area, alpha: alpha, mask: plane, maskX: maskX, maskY: maskY)
        for (source, destination) in [(picture.cbPlane, cbPlane), (picture.crPlane, crPlane)] {
            Blend.blendChroma(from: source, alphaPlane: pictureAlpha, sourceX: sourceX / 2, sourceY: sourceY / 2,
                              to: destination, rect: chroma, alpha: alpha, mask: plane, maskX: maskX / 2, maskY: maskY / 2)
        }
    }
}
