/// Where a region's picture goes: the size a source is scaled to for a render mode, and where that
/// scaled picture sits inside the region. The compositor clips the placed picture to the region,
/// so `crop` shows the centre of a picture larger than the region and `fit` shows a smaller
/// picture centred with bars (the region's `backgroundColor`, or whatever lies below).
///
/// Every size and offset is even, because 4:2:0 chroma covers 2x2 luma pixels: an even origin and
/// an even size make the chroma rectangle exactly half the luma one, with no shared edge samples.
///
/// Pixel aspect: sizes are in stored pixels and pixels are taken to be square. A source's sample
/// aspect ratio (SAR, anamorphic video) is deliberately ignored: the sources Tessera mixes (camera
/// and screen captures, WebRTC, images) are square-pixel, and honouring SAR would make the same
/// stream look different depending on one rarely-correct header field.
public enum RegionPlacement {
    /// The even size a `source` picture is scaled to before it is drawn into `region`.
    ///
    /// - `stretch`: the region's size.
    /// - `crop`: scale `s = max(rw/sw, rh/sh)`, so the picture covers the region; the side that sets
    ///   the scale equals the region's, the other is `≥` it (the excess is cropped off, centred).
    /// - `fit`: scale `s = min(rw/sw, rh/sh)`, so the picture fits inside; the side that sets the scale
    ///   equals the region's, the other is `≤` it (bars fill the rest), and at least 2.
    ///
    /// The free side is `sw·s` (or `sh·s`) rounded to the nearest even number, kept `≥` the region
    /// for crop and `≤` it for fit, worked in integers so exact ratios stay exact (1920x1080 into
    /// 640x360 is 640x360, not 640x362). A region of odd size counts as the even size below it
    /// (at least 2); a source with no size is stretched.
    public static func scaledSize(source: PixelSize, region: PixelSize, mode: RenderMode) -> PixelSize {
        let rw = max(2, evenFloor(region.width)), rh = max(2, evenFloor(region.height))
        let sw = source.width, sh = source.height
        guard sw > 0, sh > 0, mode != .stretch else { return PixelSize(width: rw, height: rh) }
        // rw/sw >= rh/sh  ⇔  rw·sh >= rh·sw (all positive): width is the side that limits a fit
        // and the side that overflows least in a crop.
        let widthSetsScale = (mode == .crop) == (rw * sh >= rh * sw)
        if widthSetsScale {
            // s = rw/sw, free side h = sh·rw/sw.
            let h = nearestEven(sh * rw, over: sw)
            return PixelSize(width: rw, height: mode == .crop ? max(rh, h) : max(2, min(rh, h)))
        } else {
            // s = rh/sh, free side w = sw·rh/sh.
            let w = nearestEven(sw * rh, over: sh)
            return PixelSize(width: mode == .crop ? max(rw, w) : max(2, min(rw, w)), height: rh)
        }
    }

    /// Top-left of a picture of size `scaled` centred in `region`:
    /// `region.x + evenFloor((region.width − scaled.width) / 2)`, same for y. The difference is
    /// negative for crop (the picture starts left of / above the region) and positive for fit
    /// (bars); flooring toward −∞ keeps the origin even on both sides.
    public static func origin(region: PixelRect, scaled: PixelSize) -> (x: Int, y: Int) {
        (region.x + evenFloor(floorDiv(region.width - scaled.width, 2)),
         region.y + evenFloor(floorDiv(region.height - scaled.height, 2)))
    }

    /// The largest even number `≤ value`, for negative values too (−3 → −4).
    public static func evenFloor(_ value: Int) -> Int { floorDiv(value, 2) * 2 }

    /// The smallest even number `≥ value` (3 → 4, −3 → −2).
    public static func evenCeil(_ value: Int) -> Int { -evenFloor(-value) }

    /// `numerator / denominator` rounded to the nearest even integer (ties up), for positive values:
    /// the nearest even of q is `2·round(q/2) = 2·floor((n + d) / 2d)`.
    static func nearestEven(_ numerator: Int, over denominator: Int) -> Int {
        2 * ((numerator + denominator) / (2 * denominator))
    }

    /// Division rounding toward −∞ (Swift's `/` rounds toward zero); `denominator > 0`.
    static func floorDiv(_ numerator: Int, _ denominator: Int) -> Int {
        let q = numerator / denominator
        return (numerator % denominator != 0 && numerator < 0) ? q - 1 : q
    }
}
