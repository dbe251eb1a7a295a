import Testing
import TesseraComposition

/// Rounded corners and mask shapes: the coverage mask and the masked kernels, exact bytes on tiny
/// planes (the arithmetic is spelled out in `CoverageMask` and `Blend+Mask`).
@Suite struct CoverageMaskTests {
    static func rows(_ mask: CoverageMask) -> [[UInt8]] {
        (0..<mask.height).map { y in (0..<mask.width).map { x in mask[x, y] } }
    }

    @Test func roundedCornersAreAntiAliased() {
        // r = 2: pixel (0, 0) has its centre 2.121 from the corner circle's centre → 0.379 covered;
        // (1, 0) 1.581 → 0.919; (1, 1) inside.
        let mask = CoverageMask(width: 4, height: 4, cornerRadius: 2)
        #expect(Self.rows(mask) == [[97, 234, 234, 97], [234, 255, 255, 234], [234, 255, 255, 234], [97, 234, 234, 97]])
    }

    @Test func radiusIsClampedToHalfTheShorterSide() {
        #expect(Self.rows(CoverageMask(width: 4, height: 4, cornerRadius: 50)) == Self.rows(CoverageMask(width: 4, height: 4, cornerRadius: 2)))
        #expect(Self.rows(CoverageMask(width: 4, height: 2, cornerRadius: 0)) == [[255, 255, 255, 255], [255, 255, 255, 255]])
    }

    @Test func shapeMultipliesCorners() {
        let shape = YUVImage(width: 4, height: 4, hasAlpha: true)
        shape.fill(YUVColor(y: 0, u: 0, v: 0, alpha: 128))
        let mask = CoverageMask(width: 4, height: 4, cornerRadius: 2, shape: shape.alphaPlane)
        // round(97·128 / 255) = 49, round(234·128 / 255) = 117, round(255·128 / 255) = 128.
        #expect(Self.rows(mask) == [[49, 117, 117, 49], [117, 128, 128, 117], [117, 128, 128, 117], [49, 117, 117, 49]])
    }

    static func region(_ w: Int, _ h: Int, alpha: UInt8 = 255, radius: Int? = nil, background: YUVColor? = nil) -> ResolvedRegion {
        ResolvedRegion(documentIndex: 0, content: .input(0), rect: PixelRect(x: 0, y: 0, width: w, height: h), alpha: alpha,
                       renderMode: .stretch, backgroundColor: background, placeholderImage: nil, cornerRadius: radius)
    }

    static func compose(_ region: ResolvedRegion, picture: YUVImage?, mask: CoverageMask?, canvas size: PixelSize) -> YUVImage {
        let layout = ResolvedLayout(canvasWidth: size.width, canvasHeight: size.height, backgroundColor: YUVColor(y: 16, u: 128, v: 128),
                                    backgroundImage: nil, regions: [region])
        let canvas = YUVImage(width: size.width, height: size.height)
        Compositor().compose(layout: layout, background: nil, into: canvas, region: { _ in RegionPicture(image: picture, mask: mask) })
        return canvas
    }

    @Test func cornersShowWhatLiesBelow() {
        let picture = YUVImage(width: 4, height: 4)
        picture.fill(YUVColor(y: 235, u: 200, v: 60))
        let mask = CoverageMask(width: 4, height: 4, cornerRadius: 2)
        let canvas = Self.compose(Self.region(4, 4, radius: 2), picture: picture, mask: mask, canvas: PixelSize(width: 4, height: 4))
        // Luma weight = M: round((97·235 + 158·16) / 255) = 99, round((234·235 + 21·16) / 255) = 217.
        #expect(canvas.sample(x: 0, y: 0).y == 99)
        #expect(canvas.sample(x: 1, y: 0).y == 217)
        #expect(canvas.sample(x: 1, y: 1).y == 235)
        #expect(canvas.sample(x: 3, y: 3).y == 99)
        // Chroma: the mean of the 2x2 mask values, (97 + 234 + 234 + 255 + 2) >> 2 = 205;
        // round((205·200 + 50·128) / 255) = 186, round((205·60 + 50·128) / 255) = 73.
        #expect(canvas.sample(x: 0, y: 0).u == 186)
        #expect(canvas.sample(x: 0, y: 0).v == 73)
    }

    @Test func maskMultipliesRegionAlphaAndPictureAlpha() {
        let picture = YUVImage(width: 4, height: 4, hasAlpha: true)
        picture.fill(YUVColor(y: 235, u: 128, v: 128, alpha: 255))
        picture.a![0] = 128 // pixel (0, 0) half transparent
        let mask = CoverageMask(width: 4, height: 4, cornerRadius: 2)
        let canvas = Self.compose(Self.region(4, 4, alpha: 128, radius: 2), picture: picture, mask: mask,
                                  canvas: PixelSize(width: 4, height: 4))
        // (0, 0): m = round(128·97 / 255) = 49, w = round(128·49 / 255) = 25, round((25·235 + 230·16) / 255) = 37.
        #expect(canvas.sample(x: 0, y: 0).y == 37)
        // (1, 1): m = 255, w = 128: round((128·235 + 127·16) / 255) = 126.
        #expect(canvas.sample(x: 1, y: 1).y == 126)
    }

    @Test func regionBackgroundIsMaskedToo() {
        let mask = CoverageMask(width: 4, height: 4, cornerRadius: 2)
        let canvas = Self.compose(Self.region(4, 4, radius: 2, background: YUVColor(y: 235, u: 128, v: 128)), picture: nil,
                                  mask: mask, canvas: PixelSize(width: 4, height: 4))
        #expect((0..<4).map { canvas.sample(x: $0, y: 0).y } == [99, 217, 217, 99])
    }

    /// A mask of 255 everywhere gives exactly the unmasked kernels' bytes (pictures with and without
    /// alpha, partial region alpha, clipping at the canvas edge).
    @Test(arguments: [false, true]) func fullMaskEqualsNoMask(withAlpha: Bool) {
        let picture = YUVImage(width: 8, height: 6, hasAlpha: withAlpha)
        for y in 0..<6 { for x in 0..<8 { picture.y[y * picture.lumaStride + x] = UInt8((x * 31 + y * 17) & 255) } }
        for y in 0..<3 { for x in 0..<4 {
            picture.u[y * picture.chromaStride + x] = UInt8((x * 53 + y * 7) & 255)
            picture.v[y * picture.chromaStride + x] = UInt8((x * 11 + y * 97) & 255)
        } }
        if let a = picture.a { for y in 0..<6 { for x in 0..<8 { a[y * picture.lumaStride + x] = UInt8((x * 41 + y * 67) & 255) } } }
        var region = Self.region(8, 6, alpha: 200, background: YUVColor(y: 50, u: 60, v: 70, alpha: 180))
        region.rect = PixelRect(x: 2, y: 2, width: 8, height: 6)
        let size = PixelSize(width: 8, height: 6)
        let full = CoverageMask(width: 8, height: 6, cornerRadius: 0)
        let masked = Self.compose(region, picture: picture, mask: full, canvas: size)
        let plain = Self.compose(region, picture: picture, mask: nil, canvas: size)
        for y in 0..<6 { for x in 0..<8 { #expect(masked.sample(x: x, y: y) == plain.sample(x: x, y: y)) } }
    }

    @Test func cacheRebuildsOnlyOnShapeChange() {
        let cache = CoverageMaskCache()
        var region = Self.region(4, 4, radius: 2)
        var builds = 0
        let first = cache.mask(for: region) { _ in builds += 1; return nil }
        region.alpha = 10 // not part of the shape
        let second = cache.mask(for: region) { _ in builds += 1; return nil }
        #expect(first != nil && first === second)
        region.cornerRadius = 1
        #expect(cache.mask(for: region) { _ in nil } !== first)
        region.cornerRadius = nil
        #expect(cache.mask(for: region) { _ in nil } == nil)
        #expect(builds == 0) // no mask image: the shape is never asked for
    }
}
