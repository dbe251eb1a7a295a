/// An 8-bit Y'CbCr 4:2:0 picture with an optional full-resolution alpha plane, in one aligned
/// allocation that this object owns (or takes from, and gives back to, a `YUVImagePool`), or in
/// memory someone else owns and keeps alive (`init(width:height:planes:owner:)`). Scalers write
/// into it through the plane pointers; the compositor reads and blends it.
///
/// Threads: an image is written by one thread and then handed over whole (through a queue) to the
/// thread that reads it; nobody writes an image another thread may be reading. That hand-over is
/// why it is `@unchecked Sendable`.
public final class YUVImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let chromaWidth: Int
    public let chromaHeight: Int
    public let lumaStride: Int
    public let chromaStride: Int
    public let y: UnsafeMutablePointer<UInt8>
    public let u: UnsafeMutablePointer<UInt8>
    public let v: UnsafeMutablePointer<UInt8>
    /// Opacity per luma pixel (255 opaque), or nil when the whole picture is opaque.
    public let a: UnsafeMutablePointer<UInt8>?
    private let backing: Backing

    private enum Backing {
        case owned(UnsafeMutableRawPointer, byteCount: Int, pool: YUVImagePool?)
        /// Planes inside memory `owner` keeps alive (an encoder's frame buffer).
        case borrowed(owner: AnyObject)
    }

    /// Strides are multiples of 64 so SIMD scalers never read past a row's own allocation.
    private static let alignment = 64

    /// A new picture; with `pool`, its memory comes from there and goes back when it is released.
    public init(width: Int, height: Int, hasAlpha: Bool = false, pool: YUVImagePool? = nil) {
        precondition(width > 0 && height > 0, "YUVImage needs a positive size, got \(width)x\(height)")
        self.width = width
        self.height = height
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        lumaStride = Self.roundUp(width)
        chromaStride = Self.roundUp(chromaWidth)
        let lumaBytes = lumaStride * height
        let chromaBytes = chromaStride * chromaHeight
        // One spare row at the end: some SIMD paths read a little past the last row.
        let total = lumaBytes * (hasAlpha ? 2 : 1) + chromaBytes * 2 + lumaStride
        let storage = pool?.take(byteCount: total, alignment: Self.alignment)
            ?? UnsafeMutableRawPointer.allocate(byteCount: total, alignment: Self.alignment)
        backing = .owned(storage, byteCount: total, pool: pool)
        let base = storage.bindMemory(to: UInt8.self, capacity: total)
        y = base
        u = base + lumaBytes
        v = base + lumaBytes + chromaBytes
        a = hasAlpha ? base + lumaBytes + 2 * chromaBytes : nil
        (base + total - lumaStride).initialize(repeating: 0, count: lumaStride)
    }

    /// A picture whose planes live in memory `owner` keeps alive for as long as this picture lives.
    /// Strides need not be multiples of 64: such a picture is drawn into, never a scaler's output.
    public init(width: Int, height: Int, y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>,
                v: UnsafeMutablePointer<UInt8>, lumaStride: Int, chromaStride: Int, owner: AnyObject) {
        precondition(width > 0 && height > 0, "YUVImage needs a positive size, got \(width)x\(height)")
        self.width = width
        self.height = height
        chromaWidth = (width + 1) / 2
        chromaHeight = (height + 1) / 2
        self.lumaStride = lumaStride
        self.chromaStride = chromaStride
        self.y = y
        self.u = u
        self.v = v
        a = nil
        backing = .borrowed(owner: owner)
    }

    deinit {
        if case .owned(let storage, let byteCount, let pool) = backing {
            if let pool { pool.give(storage, byteCount: byteCount) } else { storage.deallocate() }
        }
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var hasAlpha: Bool { a != nil }

    /// Paints the whole picture one colour (alpha plane, if any, to the colour's alpha).
    public func fill(_ color: YUVColor) {
        for row in 0..<height { (y + row * lumaStride).update(repeating: color.y, count: width) }
        for row in 0..<chromaHeight {
            (u + row * chromaStride).update(repeating: color.u, count: chromaWidth)
            (v + row * chromaStride).update(repeating: color.v, count: chromaWidth)
        }
        if let a { for row in 0..<height { (a + row * lumaStride).update(repeating: color.alpha, count: width) } }
    }

    /// Luma, Cb, Cr (and alpha, 255 when opaque) at a pixel; for tests and snapshots.
    public func sample(x: Int, y py: Int) -> YUVColor {
        let cx = x / 2, cy = py / 2
        return YUVColor(y: y[py * lumaStride + x], u: u[cy * chromaStride + cx], v: v[cy * chromaStride + cx],
                        alpha: a.map { $0[py * lumaStride + x] } ?? 255)
    }

    private static func roundUp(_ value: Int) -> Int { (value + alignment - 1) / alignment * alignment }
}
