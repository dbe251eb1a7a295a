/// One 8-bit plane of a picture as the kernels see it: a base pointer and a row stride in bytes.
/// Width and height travel with each call (as the rectangle being worked on), so a view is just
/// "where row 0 starts and how far apart rows are" and costs nothing to make.
public struct PlaneView {
    public var base: UnsafeMutablePointer<UInt8>
    public var stride: Int
    public init(base: UnsafeMutablePointer<UInt8>, stride: Int) { self.base = base; self.stride = stride }

    /// Pointer to pixel (x, y).
    @inline(__always)
    public func pointer(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride + x }
}

extension YUVImage {
    /// The luma plane.
    public var lumaPlane: PlaneView { PlaneView(base: y, stride: lumaStride) }
    /// The Cb plane (half size).
    public var cbPlane: PlaneView { PlaneView(base: u, stride: chromaStride) }
    /// The Cr plane (half size).
    public var crPlane: PlaneView { PlaneView(base: v, stride: chromaStride) }
    /// The alpha plane (full size), or nil when the picture is opaque.
    public var alphaPlane: PlaneView? { a.map { PlaneView(base: $0, stride: lumaStride) } }
    /// The whole picture as a rectangle at (0, 0).
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }
}

extension PixelRect {
    /// The largest rectangle inside this one with even edges (x and maxX, y and maxY), so its
    /// chroma rectangle is exactly half of it. A rectangle that is already even comes back unchanged.
    public var evenInset: PixelRect {
        let left = RegionPlacement.evenCeil(x), top = RegionPlacement.evenCeil(y)
        let right = RegionPlacement.evenFloor(maxX), bottom = RegionPlacement.evenFloor(maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The chroma (4:2:0) rectangle of an even rectangle: every value halved.
    public var halved: PixelRect { PixelRect(x: x / 2, y: y / 2, width: width / 2, height: height / 2) }
}
