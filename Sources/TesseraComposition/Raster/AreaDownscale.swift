/// Halving a picture in both directions: every output sample is the rounded mean of the 2 x 2
/// block of source samples it covers, which is what area averaging means when the blocks fall on
/// whole samples.
///
/// It is the commonest scale of a mix (a 1280x720 camera in a 640x360 tile of a 2x2 grid), and
/// there the mean of whole blocks needs no filter coefficients: about a sixth of swscale's cost per
/// picture, for the very samples swscale's area filter gives (`AreaDownscaleTests`, and
/// `tests/test_area_downscale.py` against the `ffmpeg` command line). Other whole factors gain
/// less over swscale without hand-vectorising each, so they stay with it.
public enum AreaDownscale {
    /// Whether a 4:2:0 picture of `source` size halves exactly to `target` size, its chroma planes
    /// included (so `target` is even).
    public static func halves(_ source: PixelSize, to target: PixelSize) -> Bool {
        target.width > 0 && target.height > 0 && target.width % 2 == 0 && target.height % 2 == 0
            && source.width == 2 * target.width && source.height == 2 * target.height
    }

    /// Writes the `width` x `height` plane at `target`: each sample the mean of the 2 x 2 block
    /// under it at `source`, rounded half up.
    public static func halve(_ source: UnsafePointer<UInt8>, stride sourceStride: Int,
                             into target: UnsafeMutablePointer<UInt8>, stride targetStride: Int,
                             width: Int, height: Int) {
        for row in 0..<height {
            halveRow(source + 2 * row * sourceStride, sourceStride, into: target + row * targetStride, width: width)
        }
    }

    /// One output row from two source rows, sixteen samples at a time, then the rest one by one.
    /// A pair of 8-bit samples is read as one little-endian 16-bit lane, so the pair's sum is its
    /// low byte plus its high byte: no widening shuffles, which Swift's generic SIMD conversions
    /// would otherwise make a call per vector.
    @inline(__always)
    private static func halveRow(_ top: UnsafePointer<UInt8>, _ stride: Int, into out: UnsafeMutablePointer<UInt8>,
                                 width: Int) {
        let bottom = top + stride
        let lowByte = SIMD16<UInt16>(repeating: 0x00FF)
        var x = 0
        while x + 16 <= width {
            let upper = UnsafeRawPointer(top + 2 * x).loadUnaligned(as: SIMD16<UInt16>.self)
            let lower = UnsafeRawPointer(bottom + 2 * x).loadUnaligned(as: SIMD16<UInt16>.self)
            let sum = (upper & lowByte) &+ (upper &>> 8) &+ (lower & lowByte) &+ (lower &>> 8)
            let mean = (sum &+ 2) &>> 2
            var packed = SIMD16<UInt8>()
            for lane in 0..<16 { packed[lane] = UInt8(truncatingIfNeeded: mean[lane]) }
            UnsafeMutableRawPointer(out + x).storeBytes(of: packed, as: SIMD16<UInt8>.self)
            x += 16
        }
        while x < width {
            let sum = UInt16(top[2 * x]) &+ UInt16(top[2 * x + 1]) &+ UInt16(bottom[2 * x]) &+ UInt16(bottom[2 * x + 1])
            out[x] = UInt8(truncatingIfNeeded: (sum &+ 2) &>> 2)
            x += 1
        }
    }
}
