/// Whole-picture drawing operations built on the `Blend` kernels: a colour over a rectangle, and one
/// picture over another. Each clips to the destination and to the even grid first, then runs the
/// cheapest kernel that gives the same bytes (skip at weight 0, fill / row copy at weight 255 with
/// no alpha plane, a blend otherwise). The destination's own alpha plane, if any, is left alone.
extension YUVImage {
    /// Paints `color` over `rect` (clipped to the picture and to even edges) with weight `alpha`
    /// (an 8-bit opacity, 255 opaque). The colour's own `alpha` is not applied here: callers fold
    /// it into `alpha` (see `Compositor`).
    public func fill(_ rect: PixelRect, with color: YUVColor, alpha: UInt8 = 255) {
        let area = rect.intersection(bounds).evenInset
        guard !area.isEmpty, alpha > 0 else { return }
        let chroma = area.halved
        Blend.fill(lumaPlane, rect: area, value: color.y, alpha: alpha)
        Blend.fill(cbPlane, rect: chroma, value: color.u, alpha: alpha)
        Blend.fill(crPlane, rect: chroma, value: color.v, alpha: alpha)
    }

    /// Draws `picture` with its top-left at (`x`, `y`) (even), only where it falls inside `clip`
    /// (and this picture), with weight `alpha · A / 255` per pixel, `A` being the picture's alpha
    /// plane value (255 when it has none).
    public func draw(_ picture: YUVImage, x: Int, y: Int, clip: PixelRect? = nil, alpha: UInt8 = 255) {
        guard alpha > 0 else { return }
        var area = PixelRect(x: x, y: y, width: picture.width, height: picture.height).intersection(bounds)
        if let clip { area = area.intersection(clip) }
        area = area.evenInset
        guard !area.isEmpty else { return }
        // Offset into the picture; even because both the area and (x, y) are even, so the chroma
        // offset is exactly half of it.
        let sourceX = area.x - x, sourceY = area.y - y
        let chroma = area.halved
        let chromaX = sourceX / 2, chromaY = sourceY / 2
        if let pictureAlpha = picture.alphaPlane {
            Blend.blend(from: picture.lumaPlane, alphaPlane: pictureAlpha, sourceX: sourceX, sourceY: sourceY,
                        to: lumaPlane, rect: area, alpha: alpha)
            Blend.blendChroma(from: picture.cbPlane, alphaPlane: pictureAlpha, sourceX: chromaX, sourceY: chromaY,
                              to: cbPlane, rect: chroma, alpha: alpha)
            Blend.blendChroma(from: picture.crPlane, alphaPlane: pictureAlpha, sourceX: chromaX, sourceY: chromaY,
                              to: crPlane, rect: chroma, alpha: alpha)
        } else {
            // alpha 255 becomes a row copy inside `Blend.blend`.
            Blend.blend(from: picture.lumaPlane, sourceX: sourceX, sourceY: sourceY, to: lumaPlane, rect: area, alpha: alpha)
            Blend.blend(from: picture.cbPlane, sourceX: chromaX, sourceY: chromaY, to: cbPlane, rect: chroma, alpha: alpha)
            Blend.blend(from: picture.crPlane, sourceX: chromaX, sourceY: chromaY, to: crPlane, rect: chroma, alpha: alpha)
        }
    }
}
