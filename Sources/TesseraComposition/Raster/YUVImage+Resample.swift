extension YUVImage {
    /// This picture at `size`, nearest-neighbour. Only for the few frames after a layout re-flows,
    /// which the input threads scaled (properly, with swscale) for the sizes before: a coarse
    /// picture for a moment reads better than an empty slot.
    public func resampled(to size: PixelSize) -> YUVImage {
        let out = YUVImage(width: size.width, height: size.height, hasAlpha: hasAlpha)
        Self.resample(y, lumaStride, width, height, into: out.y, out.lumaStride, out.width, out.height)
        Self.resample(u, chromaStride, chromaWidth, chromaHeight, into: out.u, out.chromaStride, out.chromaWidth, out.chromaHeight)
        Self.resample(v, chromaStride, chromaWidth, chromaHeight, into: out.v, out.chromaStride, out.chromaWidth, out.chromaHeight)
        if let a, let outA = out.a { Self.resample(a, lumaStride, width, height, into: outA, out.lumaStride, out.width, out.height) }
        return out
    }

    private static func resample(_ source: UnsafeMutablePointer<UInt8>, _ sourceStride: Int, _ sourceWidth: Int,
                                 _ sourceHeight: Int, into target: UnsafeMutablePointer<UInt8>, _ targetStride: Int,
                                 _ targetWidth: Int, _ targetHeight: Int) {
        // Each target pixel takes the source pixel under its centre.
        let columns = (0..<targetWidth).map { min(sourceWidth - 1, (2 * $0 + 1) * sourceWidth / (2 * targetWidth)) }
        for row in 0..<targetHeight {
            let sourceRow = source + min(sourceHeight - 1, (2 * row + 1) * sourceHeight / (2 * targetHeight)) * sourceStride
            let targetRow = target + row * targetStride
            for (column, from) in columns.enumerated() { targetRow[column] = sourceRow[from] }
        }
    }
}
