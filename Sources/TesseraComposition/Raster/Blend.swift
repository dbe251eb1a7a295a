/// Pixel kernels on 8-bit planes: fill, copy and alpha blend over a rectangle.
///
/// Blending is `out = (a·src + (255 − a)·dst) / 255` on code values (gamma-encoded Y'CbCr, as
/// broadcast mixers do), with `a` an 8-bit weight and the division rounded to nearest. The callers
/// (the compositor) clip rectangles first; these functions trust them and do no bounds checks.
///
/// Speed: the loops work on raw pointers with wrapping arithmetic (`&+`, `&*`, `&>>`) so the
/// compiler has no overflow traps to keep and can vectorise them; every value that does not
/// change across a row is worked out before the row.
public enum Blend {
    /// `x / 255` rounded to nearest, exactly, for `0 ≤ x ≤ 255·255`, without a divide:
    /// `((x + 128) · 257) >> 16`. Why: `257 / 65536 = 1 / 255.004`, and `(x + 128)·(256 + 1) / 65536`
    /// is `(y + y/256) / 256` with `y = x + 128`, the classic exact form of `round(x / 255)`
    /// (as FFmpeg's vf_overlay spells it). The largest intermediate, `(65025 + 128)·257`, fits in 32 bits.
    @inline(__always)
    public static func divide255(_ x: UInt32) -> UInt32 { ((x &+ 128) &* 257) &>> 16 }

    /// The same rounding in 16-bit lanes, for the inner loops: with `t = x + 128`,
    /// `round(x / 255) = (t + (t >> 8)) >> 8`, and `t + (t >> 8) ≤ 65153 + 254` still fits in 16 bits,
    /// so the vectoriser can work on twice as many pixels per instruction as with 32-bit lanes.
    @inline(__always)
    static func divide255(_ x: UInt16) -> UInt16 {
        let t = x &+ 128
        return (t &+ (t &>> 8)) &>> 8
    }

    /// `(a·src + (255 − a)·dst) / 255`, rounded: one blended component.
    @inline(__always)
    public static func mix(_ src: UInt8, over dst: UInt8, alpha: UInt8) -> UInt8 {
        let a = UInt32(alpha)
        return UInt8(truncatingIfNeeded: divide255(a &* UInt32(src) &+ (255 &- a) &* UInt32(dst)))
    }

    // MARK: Fill

    /// Sets every pixel of `rect` to `value`.
    public static func fill(_ plane: PlaneView, rect: PixelRect, value: UInt8) {
        guard !rect.isEmpty else { return }
        var row = plane.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            row.update(repeating: value, count: rect.width)
            row += plane.stride
        }
    }

    /// Blends the constant `value` over `rect` with weight `alpha` (255: plain fill, 0: nothing).
    public static func fill(_ plane: PlaneView, rect: PixelRect, value: UInt8, alpha: UInt8) {
        guard !rect.isEmpty, alpha > 0 else { return }
        if alpha == 255 { return fill(plane, rect: rect, value: value) }
        // a·src is the same for every pixel: hoisted out.
        let weighted = UInt16(alpha) &* UInt16(value), keep = 255 &- UInt16(alpha)
        let width = rect.width
        var row = plane.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            for i in 0..<width {
                row[i] = UInt8(truncatingIfNeeded: divide255(weighted &+ keep &* UInt16(row[i])))
            }
            row += plane.stride
        }
    }

    // MARK: Copy and constant-alpha blend

    /// Copies a `rect.width × rect.height` block from `source` at (`sourceX`, `sourceY`) to `rect`
    /// in `destination`, one `memcpy`-like row at a time.
    public static func copy(from source: PlaneView, sourceX: Int, sourceY: Int, to destination: PlaneView, rect: PixelRect) {
        guard !rect.isEmpty else { return }
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            dst.update(from: src, count: rect.width)
            src += source.stride
            dst += destination.stride
        }
    }

    /// Blends a block of `source` over `rect` in `destination` with one weight `alpha` for every pixel
    /// (255: copy, 0: nothing).
    public static func blend(from source: PlaneView, sourceX: Int, sourceY: Int, to destination: PlaneView,
                             rect: PixelRect, alpha: UInt8) {
        guard !rect.isEmpty, alpha > 0 else { return }
        if alpha == 255 { return copy(from: source, sourceX: sourceX, sourceY: sourceY, to: destination, rect: rect) }
        let a = UInt16(alpha), keep = 255 &- a
        let width = rect.width
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            for i in 0..<width {
                dst[i] = UInt8(truncatingIfNeeded: divide255(a &* UInt16(src[i]) &+ keep &* UInt16(dst[i])))
            }
            src += source.stride
            dst += destination.stride
        }
    }

    // MARK: Per-pixel alpha blend

    /// Blends a full-resolution block of `source` whose opacity is `sourceAlpha` (same geometry as
    /// `source`) over `rect`, each pixel with weight `alpha·A / 255` where `A` is its alpha sample.
    /// `alpha·A / 255` uses the same rounding as the blend, so `alpha = 255` gives exactly `A`.
    public static func blend(from source: PlaneView, alphaPlane sourceAlpha: PlaneView, sourceX: Int, sourceY: Int,
                             to destination: PlaneView, rect: PixelRect, alpha: UInt8) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha)
        let width = rect.width
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var srcA = UnsafePointer(sourceAlpha.pointer(x: sourceX, y: sourceY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            for i in 0..<width {
                let a = divide255(global &* UInt16(srcA[i]))
                dst[i] = UInt8(truncatingIfNeeded: divide255(a &* UInt16(src[i]) &+ (255 &- a) &* UInt16(dst[i])))
            }
            src += source.stride
            srcA += sourceAlpha.stride
            dst += destination.stride
        }
    }

    /// Blends a half-resolution (4:2:0 chroma) block of `source` over `rect` (chroma coordinates),
    /// weighting each chroma sample by the mean of the 2x2 full-resolution alpha samples it covers:
    /// `A = (a00 + a01 + a10 + a11 + 2) >> 2` (rounded mean), then `alpha·A / 255` as for luma.
    /// `sourceX`, `sourceY` are chroma coordinates; the alpha block starts at twice them.
    public static func blendChroma(from source: PlaneView, alphaPlane sourceAlpha: PlaneView, sourceX: Int, sourceY: Int,
                                   to destination: PlaneView, rect: PixelRect, alpha: UInt8) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha)
        let width = rect.width
        let alphaStride = sourceAlpha.stride
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var srcA = UnsafePointer(sourceAlpha.pointer(x: 2 * sourceX, y: 2 * sourceY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            let below = srcA + alphaStride
            for i in 0..<width {
                let sum = UInt16(srcA[2 &* i]) &+ UInt16(srcA[2 &* i &+ 1]) &+ UInt16(below[2 &* i]) &+ UInt16(below[2 &* i &+ 1])
                let a = divide255(global &* ((sum &+ 2) &>> 2))
                dst[i] = UInt8(truncatingIfNeeded: divide255(a &* UInt16(src[i]) &+ (255 &- a) &* UInt16(dst[i])))
            }
            src += source.stride
            srcA += 2 * alphaStride
            dst += destination.stride
        }
    }
}
