/// Turning pictures: quarter turns and mirrors of 8-bit planes are pure moves of samples, no
/// filtering, so a turned picture has exactly the samples of the original.
///
/// 4:2:0 chroma turns with its luma: a `w×h` picture has `⌈w/2⌉×⌈h/2⌉` chroma samples and its turned
/// `h×w` picture `⌈h/2⌉×⌈w/2⌉`, which is the chroma plane turned. (Chroma siting moves by half a
/// sample on a turn; at the even sizes Tessera draws, nobody can see that.)
extension PictureOrientation {
    /// Where sample (x, y) of a `width×height` plane lands: mirror `x → w−1−x` first, then
    ///
    ///     0°: (x, y)   90°: (h−1−y, x)   180°: (w−1−x, h−1−y)   270°: (y, w−1−x)
    ///
    /// (clockwise, y down: the top-left corner goes to the top-right at 90°).
    public func destination(ofX x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let mx = mirrored ? width - 1 - x : x
        switch quarterTurns {
        case 1: return (height - 1 - y, mx)
        case 2: return (width - 1 - mx, height - 1 - y)
        case 3: return (y, width - 1 - mx)
        default: return (mx, y)
        }
    }

    /// Copies a `width×height` plane into `destination`, turned: the destination is
    /// `displayedSize(of:)` that size. The mapping is affine, so the destination offset of
    /// (x, y) is `origin + x·stepX + y·stepY`; rows that stay rows (0° / 180° unmirrored, or
    /// the mirrors) are plain or reversed copies, the quarter turns write down columns.
    public func apply(from source: PlaneView, width: Int, height: Int, to destination: PlaneView) {
        guard width > 0, height > 0 else { return }
        func offset(_ x: Int, _ y: Int) -> Int {
            let point = self.destination(ofX: x, y: y, width: width, height: height)
            return point.y * destination.stride + point.x
        }
        let origin = offset(0, 0)
        let stepX = offset(1, 0) - origin, stepY = offset(0, 1) - origin
        for row in 0..<height {
            let from = source.base + row * source.stride
            let to = destination.base + (origin + row * stepY)
            if stepX == 1 {
                to.update(from: from, count: width)
            } else {
                for x in 0..<width { to[x * stepX] = from[x] }
            }
        }
    }
}

extension YUVImage {
    /// This picture turned by `orientation`: a new image of the displayed size (alpha kept), or
    /// this very image when there is nothing to turn.
    public func oriented(_ orientation: PictureOrientation) -> YUVImage {
        if orientation.isUpright { return self }
        let size = orientation.displayedSize(of: self.size)
        let turned = YUVImage(width: size.width, height: size.height, hasAlpha: hasAlpha)
        orientation.apply(from: lumaPlane, width: width, height: height, to: turned.lumaPlane)
        orientation.apply(from: cbPlane, width: chromaWidth, height: chromaHeight, to: turned.cbPlane)
        orientation.apply(from: crPlane, width: chromaWidth, height: chromaHeight, to: turned.crPlane)
        if let alpha = alphaPlane, let turnedAlpha = turned.alphaPlane {
            orientation.apply(from: alpha, width: width, height: height, to: turnedAlpha)
        }
        return turned
    }
}
