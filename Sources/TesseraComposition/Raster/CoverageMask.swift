import Foundation

/// A region's shape as an 8-bit coverage per canvas pixel of the region (255: drawn fully, 0: not
/// at all — what lies below shows): rounded corners (`cornerRadius`) times a mask image's alpha
/// (`maskImage`). Built once per layout, off the per-frame path; the blend kernels multiply each
/// pixel's weight by it (`Blend+Mask`).
///
/// Threads: immutable after `init`, so one mask may be read by any thread.
public final class CoverageMask: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Row stride in bytes: the width (masks are read, never handed to SIMD scalers).
    public var stride: Int { width }
    private let storage: UnsafeMutablePointer<UInt8>

    /// A mask of the region's size: `cornerRadius` (canvas pixels, clamped to half the shorter
    /// side) rounds the corners with a one-pixel anti-aliased edge; `shape`, a plane of the region's
    /// size (a mask image's alpha scaled to it), multiplies in: `M = round(corner · shape / 255)`.
    public init(width: Int, height: Int, cornerRadius: Int, shape: PlaneView? = nil) {
        precondition(width > 0 && height > 0, "CoverageMask needs a positive size, got \(width)x\(height)")
        self.width = width
        self.height = height
        storage = .allocate(capacity: width * height)
        storage.initialize(repeating: 255, count: width * height)
        if cornerRadius > 0 { Self.roundCorners(storage, width: width, height: height, radius: cornerRadius) }
        if let shape {
            for row in 0..<height {
                let line = storage + row * width
                let alpha = shape.pointer(x: 0, y: row)
                for column in 0..<width {
                    line[column] = UInt8(Blend.divide255(UInt32(line[column]) * UInt32(alpha[column])))
                }
            }
        }
    }

    deinit { storage.deallocate() }

    /// The mask as a plane view for the kernels (read only in practice).
    public var plane: PlaneView { PlaneView(base: storage, stride: width) }

    /// Coverage at (x, y) of the region; for tests and the preview.
    public subscript(x: Int, y: Int) -> UInt8 { storage[y * width + x] }

    /// Corner coverage: inside a corner's `r × r` square, a pixel whose centre is `d` from the
    /// corner circle's centre is covered `clamp(r − d + 0.5, 0, 1)` — fully inside the arc, not at
    /// all a pixel beyond it, a linear ramp over the one pixel the arc crosses (anti-aliasing).
    private static func roundCorners(_ mask: UnsafeMutablePointer<UInt8>, width: Int, height: Int, radius: Int) {
        let r = min(radius, width / 2, height / 2)
        guard r > 0 else { return }
        let radius = Double(r)
        for dy in 0..<r {
            for dx in 0..<r {
                // Distance from the pixel centre to the circle centre at (r, r) of the top-left corner.
                let ux = radius - (Double(dx) + 0.5), uy = radius - (Double(dy) + 0.5)
                let coverage = min(1, max(0, radius - (ux * ux + uy * uy).squareRoot() + 0.5))
                let value = UInt8((coverage * 255).rounded())
                // The same value at the mirrored pixel of each corner.
                for (x, y) in [(dx, dy), (width - 1 - dx, dy), (dx, height - 1 - dy), (width - 1 - dx, height - 1 - dy)] {
                    mask[y * width + x] = value
                }
            }
        }
    }
}
