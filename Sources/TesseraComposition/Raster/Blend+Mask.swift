/// The blend kernels with a per-pixel coverage mask (`CoverageMask`: rounded corners, mask
/// images). Each pixel's weight is the region's `alpha` times the mask value `M` (and times the
/// picture's own alpha `A` when it has one), with the same rounding as the plain kernels:
/// `m = round(A·M / 255)` (or `M`), `w = round(alpha·m / 255)`, `out = round((w·src + (255 − w)·dst) / 255)`.
/// So a mask of all 255 gives exactly the bytes of the unmasked kernels.
///
/// 4:2:0 chroma: a chroma sample weighs by the rounded mean of the four full-resolution `m` values
/// it covers, `(m00 + m01 + m10 + m11 + 2) >> 2`, as `blendChroma` does for picture alpha.
/// Mask coordinates (`maskX`, `maskY`) are full-resolution in every kernel; chroma kernels read the
/// mask at twice their own offsets, so `maskX`, `maskY` there are chroma coordinates of the mask.
extension Blend {
    /// Blends the constant `value` over `rect` with weight `alpha·M / 255`, `M` read from `mask`
    /// starting at (`maskX`, `maskY`).
    public static func fill(_ plane: PlaneView, rect: PixelRect, value: UInt8, alpha: UInt8,
                            mask: PlaneView, maskX: Int, maskY: Int) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha), source = UInt16(value)
        var row = plane.pointer(x: rect.x, y: rect.y)
        var coverage = UnsafePointer(mask.pointer(x: maskX, y: maskY))
        for _ in 0..<rect.height {
            for i in 0..<rect.width {
                let w = divide255(global &* UInt16(coverage[i]))
                row[i] = UInt8(truncatingIfNeeded: divide255(w &* source &+ (255 &- w) &* UInt16(row[i])))
            }
            row += plane.stride
            coverage += mask.stride
        }
    }

    /// `fill(_:rect:value:alpha:mask:maskX:maskY:)` on a chroma plane: `rect` and (`maskX`, `maskY`)
    /// in chroma coordinates, each sample weighted by the mean of its 2x2 mask values.
    public static func fillChroma(_ plane: PlaneView, rect: PixelRect, value: UInt8, alpha: UInt8,
                                  mask: PlaneView, maskX: Int, maskY: Int) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha), source = UInt16(value)
        var row = plane.pointer(x: rect.x, y: rect.y)
        var coverage = UnsafePointer(mask.pointer(x: 2 * maskX, y: 2 * maskY))
        for _ in 0..<rect.height {
            let below = coverage + mask.stride
            for i in 0..<rect.width {
                let sum = UInt16(coverage[2 &* i]) &+ UInt16(coverage[2 &* i &+ 1]) &+ UInt16(below[2 &* i])
                    &+ UInt16(below[2 &* i &+ 1])
                let w = divide255(global &* ((sum &+ 2) &>> 2))
                row[i] = UInt8(truncatingIfNeeded: divide255(w &* source &+ (255 &- w) &* UInt16(row[i])))
            }
            row += plane.stride
            coverage += 2 * mask.stride
        }
    }

    /// Blends a full-resolution block of `source` (with its alpha plane, if any, at the same
    /// offsets) over `rect`, each pixel weighted `alpha · round(A·M / 255) / 255`.
    public static func blend(from source: PlaneView, alphaPlane sourceAlpha: PlaneView?, sourceX: Int, sourceY: Int,
                             to destination: PlaneView, rect: PixelRect, alpha: UInt8,
                             mask: PlaneView, maskX: Int, maskY: Int) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha)
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var srcA = sourceAlpha.map { UnsafePointer($0.pointer(x: sourceX, y: sourceY)) }
        var coverage = UnsafePointer(mask.pointer(x: maskX, y: maskY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            if let pictureAlpha = srcA {
                for i in 0..<rect.width {
                    let w = divide255(global &* divide255(UInt16(pictureAlpha[i]) &* UInt16(coverage[i])))
                    dst[i] = UInt8(truncatingIfNeeded: divide255(w &* UInt16(src[i]) &+ (255 &- w) &* UInt16(dst[i])))
                }
            } else {
                for i in 0..<rect.width {
                    let w = divide255(global &* UInt16(coverage[i]))
                    dst[i] = UInt8(truncatingIfNeeded: divide255(w &* UInt16(src[i]) &+ (255 &- w) &* UInt16(dst[i])))
                }
            }
            src += source.stride
            if let row = srcA, let plane = sourceAlpha { srcA = row + plane.stride }
            coverage += mask.stride
            dst += destination.stride
        }
    }

    /// The chroma twin of the masked `blend`: `source`, `rect`, (`sourceX`, `sourceY`) and
    /// (`maskX`, `maskY`) in chroma coordinates; the alpha plane and the mask are read at twice them.
    public static func blendChroma(from source: PlaneView, alphaPlane sourceAlpha: PlaneView?, sourceX: Int, sourceY: Int,
                                   to destination: PlaneView, rect: PixelRect, alpha: UInt8,
                                   mask: PlaneView, maskX: Int, maskY: Int) {
        guard !rect.isEmpty, alpha > 0 else { return }
        let global = UInt16(alpha)
        var src = UnsafePointer(source.pointer(x: sourceX, y: sourceY))
        var srcA = sourceAlpha.map { UnsafePointer($0.pointer(x: 2 * sourceX, y: 2 * sourceY)) }
        var coverage = UnsafePointer(mask.pointer(x: 2 * maskX, y: 2 * maskY))
        var dst = destination.pointer(x: rect.x, y: rect.y)
        for _ in 0..<rect.height {
            let maskBelow = coverage + mask.stride
            let alphaBelow = srcA.map { $0 + (sourceAlpha?.stride ?? 0) }
            if let top = srcA, let bottom = alphaBelow {
                for i in 0..<rect.width {
                    let l = 2 &* i, r = l &+ 1
                    let sum = divide255(UInt16(top[l]) &* UInt16(coverage[l])) &+ divide255(UInt16(top[r]) &* UInt16(coverage[r]))
                        &+ divide255(UInt16(bottom[l]) &* UInt16(maskBelow[l]))
                        &+ divide255(UInt16(bottom[r]) &* UInt16(maskBelow[r]))
                    let w = divide255(global &* ((sum &+ 2) &>> 2))
                    dst[i] = UInt8(truncatingIfNeeded: divide255(w &* UInt16(src[i]) &+ (255 &- w) &* UInt16(dst[i])))
                }
            } else {
                for i in 0..<rect.width {
                    let l = 2 &* i, r = l &+ 1
                    let sum = UInt16(coverage[l]) &+ UInt16(coverage[r]) &+ UInt16(maskBelow[l]) &+ UInt16(maskBelow[r])
                    let w = divide255(global &* ((sum &+ 2) &>> 2))
                    dst[i] = UInt8(truncatingIfNeeded: divide255(w &* UInt16(src[i]) &+ (255 &- w) &* UInt16(dst[i])))
                }
            }
            src += source.stride
            if let row = srcA, let plane = sourceAlpha { srcA = row + 2 * plane.stride }
            coverage += 2 * mask.stride
            dst += destination.stride
        }
    }
}
