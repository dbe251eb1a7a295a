import Foundation
import Testing
import TesseraComposition

/// Exact bytes on tiny canvases. Colours are raw code values so expectations are plain arithmetic.
@Suite struct CompositorTests {
    static let grey = YUVColor(y: 100, u: 110, v: 120)
    static let red = YUVColor(y: 81, u: 90, v: 240)
    static let green = YUVColor(y: 145, u: 54, v: 34)
    static let blue = YUVColor(y: 41, u: 240, v: 110)
    static let white = YUVColor(y: 235, u: 128, v: 128)

    // MARK: Helpers

    static func solid(_ width: Int, _ height: Int, _ color: YUVColor, alpha: Bool = false) -> YUVImage {
        let image = YUVImage(width: width, height: height, hasAlpha: alpha)
        image.fill(color)
        return image
    }

    static func region(_ x: Int, _ y: Int, _ w: Int, _ h: Int, alpha: UInt8 = 255, mode: RenderMode = .stretch,
                       background: YUVColor? = nil) -> ResolvedRegion {
        ResolvedRegion(documentIndex: 0, content: .input(0), rect: PixelRect(x: x, y: y, width: w, height: h),
                       alpha: alpha, renderMode: mode, backgroundColor: background, placeholderImage: nil)
    }

    static func layout(_ regions: [ResolvedRegion], width w: Int = 16, height h: Int = 8, background: YUVColor = grey) -> ResolvedLayout {
        ResolvedLayout(canvasWidth: w, canvasHeight: h, backgroundColor: background, backgroundImage: nil, regions: regions)
    }

    static func compose(_ layout: ResolvedLayout, background: YUVImage? = nil, pictures: [YUVImage?]) -> YUVImage {
        let canvas = YUVImage(width: layout.canvasWidth, height: layout.canvasHeight)
        Compositor().compose(layout: layout, background: background, into: canvas) { pictures[$0] }
        return canvas
    }

    /// Nearest-neighbour scale, standing in for the media engine's scaler.
    static func scaled(_ source: YUVImage, to size: PixelSize) -> YUVImage {
        let out = YUVImage(width: size.width, height: size.height)
        for y in 0..<size.height {
            for x in 0..<size.width {
                out.y[y * out.lumaStride + x] = source.y[(y * source.height / size.height) * source.lumaStride + x * source.width / size.width]
            }
        }
        for y in 0..<out.chromaHeight {
            for x in 0..<out.chromaWidth {
                let s = (y * source.chromaHeight / out.chromaHeight) * source.chromaStride + x * source.chromaWidth / out.chromaWidth
                out.u[y * out.chromaStride + x] = source.u[s]
                out.v[y * out.chromaStride + x] = source.v[s]
            }
        }
        return out
    }

    /// A picture whose luma is `16·x + y` and whose chroma is `100 + cx`, `200 − cy`: every pixel tells where it came from.
    static func gradient(_ width: Int, _ height: Int) -> YUVImage {
        let image = YUVImage(width: width, height: height)
        for y in 0..<height { for x in 0..<width { image.y[y * image.lumaStride + x] = UInt8(16 * x + y) } }
        for y in 0..<image.chromaHeight {
            for x in 0..<image.chromaWidth {
                image.u[y * image.chromaStride + x] = UInt8(100 + x)
                image.v[y * image.chromaStride + x] = UInt8(200 - y)
            }
        }
        return image
    }

    static func mixed(_ src: YUVColor, over dst: YUVColor, _ a: Double) -> (Double, Double, Double) {
        (a * Double(src.y) + (1 - a) * Double(dst.y), a * Double(src.u) + (1 - a) * Double(dst.u),
         a * Double(src.v) + (1 - a) * Double(dst.v))
    }

    // MARK: Arithmetic

    @Test func divide255IsExactRounding() {
        var wrong = 0
        for x in UInt32(0)...(255 * 255) where Blend.divide255(x) != UInt32((Double(x) / 255).rounded()) { wrong += 1 }
        #expect(wrong == 0)
    }

    @Test func mixEndpoints() {
        for value in [UInt8(0), 17, 128, 255] {
            #expect(Blend.mix(value, over: 77, alpha: 255) == value)
            #expect(Blend.mix(value, over: 77, alpha: 0) == 77)
        }
    }

    /// Every weight, against `Blend.mix`, with source and destination varying per pixel: the
    /// kernels' 16-bit fast arithmetic must give the same bytes as the 32-bit reference.
    @Test func kernelsMatchTheReferenceForEveryWeight() {
        let background = Self.gradient(16, 8)
        let picture = Self.gradient(16, 8), withAlpha = YUVImage(width: 16, height: 8, hasAlpha: true)
        for y in 0..<8 {
            for x in 0..<16 {
                picture.y[y * picture.lumaStride + x] = UInt8(255 - (16 * x + y))
                withAlpha.y[y * withAlpha.lumaStride + x] = UInt8(255 - (16 * x + y))
                withAlpha.a![y * withAlpha.lumaStride + x] = UInt8((37 * x + 91 * y) % 256)
            }
        }
        var mismatches = 0
        for alpha in UInt8(0)...255 {
            for image in [picture, withAlpha] {
                let canvas = Self.compose(Self.layout([Self.region(0, 0, 16, 8, alpha: alpha)]), background: background,
                                          pictures: [image])
                for y in 0..<8 {
                    for x in 0..<16 {
                        let weight = image.a.map { UInt8(Blend.divide255(UInt32(alpha) * UInt32($0[y * image.lumaStride + x]))) } ?? alpha
                        let expected = Blend.mix(image.y[y * image.lumaStride + x], over: background.sample(x: x, y: y).y, alpha: weight)
                        if canvas.sample(x: x, y: y).y != expected { mismatches += 1 }
                    }
                }
            }
        }
        #expect(mismatches == 0)
    }

    // MARK: Compose

    @Test func emptyLayoutIsBackgroundColour() {
        let canvas = Self.compose(Self.layout([]), pictures: [])
        for y in 0..<8 { for x in 0..<16 { #expect(canvas.sample(x: x, y: y) == Self.grey) } }
    }

    @Test func opaqueRegionIsCopiedAndLaterRegionsDrawOnTop() {
        let layout = Self.layout([Self.region(0, 0, 8, 8), Self.region(4, 2, 8, 4)])
        let canvas = Self.compose(layout, pictures: [Self.solid(8, 8, Self.red), Self.solid(8, 4, Self.green)])
        #expect(canvas.sample(x: 0, y: 0) == Self.red)
        #expect(canvas.sample(x: 3, y: 5) == Self.red)
        #expect(canvas.sample(x: 4, y: 2) == Self.green)       // overlap: the later region wins
        #expect(canvas.sample(x: 7, y: 5) == Self.green)
        #expect(canvas.sample(x: 11, y: 5) == Self.green)
        #expect(canvas.sample(x: 12, y: 2) == Self.grey)
        #expect(canvas.sample(x: 8, y: 6) == Self.grey)
    }

    @Test func halfAlphaIsWithinOneOfTheFormula() {
        let layout = Self.layout([Self.region(0, 0, 8, 8, alpha: 128)])
        let canvas = Self.compose(layout, pictures: [Self.solid(8, 8, Self.red)])
        let (y, u, v) = Self.mixed(Self.red, over: Self.grey, 128.0 / 255)
        let got = canvas.sample(x: 5, y: 5)
        #expect(abs(Double(got.y) - y) <= 1 && abs(Double(got.u) - u) <= 1 && abs(Double(got.v) - v) <= 1)
        // Exactly the rounded 8-bit formula.
        #expect(got == YUVColor(y: Blend.mix(Self.red.y, over: Self.grey.y, alpha: 128),
                                u: Blend.mix(Self.red.u, over: Self.grey.u, alpha: 128),
                                v: Blend.mix(Self.red.v, over: Self.grey.v, alpha: 128)))
        #expect(canvas.sample(x: 9, y: 5) == Self.grey)
    }

    @Test func zeroAlphaRegionDrawsNothing() {
        let layout = Self.layout([Self.region(0, 0, 16, 8, alpha: 0, background: Self.white)])
        let canvas = Self.compose(layout, pictures: [Self.solid(16, 8, Self.red)])
        #expect(canvas.sample(x: 3, y: 3) == Self.grey)
    }

    @Test func alphaPlaneWeightsLumaPerPixelAndChromaByTheMeanOf2x2() {
        let picture = Self.solid(4, 2, Self.red, alpha: true)
        let a = picture.a!
        // Columns 0–1: opaque; column 2: 255, column 3: 0 (chroma mean 128); luma per pixel.
        for row in 0..<2 { a[row * picture.lumaStride + 2] = 255; a[row * picture.lumaStride + 3] = 0 }
        for alpha in [UInt8(255), 128] {
            let canvas = Self.compose(Self.layout([Self.region(0, 0, 4, 2, alpha: alpha)]), pictures: [picture])
            #expect(canvas.sample(x: 0, y: 0).y == Blend.mix(Self.red.y, over: Self.grey.y, alpha: alpha))
            #expect(canvas.sample(x: 2, y: 1).y == Blend.mix(Self.red.y, over: Self.grey.y, alpha: alpha))
            #expect(canvas.sample(x: 3, y: 1).y == Self.grey.y)
            let chromaWeight = UInt8(Blend.divide255(UInt32(alpha) * ((255 + 0 + 255 + 0 + 2) / 4)))
            let chroma = canvas.sample(x: 2, y: 0)
            #expect(chroma.u == Blend.mix(Self.red.u, over: Self.grey.u, alpha: chromaWeight))
            #expect(chroma.v == Blend.mix(Self.red.v, over: Self.grey.v, alpha: chromaWeight))
            #expect(canvas.sample(x: 0, y: 0).u == Blend.mix(Self.red.u, over: Self.grey.u, alpha: alpha))
        }
    }

    @Test func clipsAtNegativePositions() {
        let picture = Self.gradient(8, 6)
        let canvas = Self.compose(Self.layout([Self.region(-4, -2, 8, 6)]), pictures: [picture])
        for y in 0..<4 {
            for x in 0..<4 { #expect(canvas.sample(x: x, y: y).y == UInt8(16 * (x + 4) + (y + 2))) }
            #expect(canvas.sample(x: 4, y: y) == Self.grey)
        }
        #expect(canvas.sample(x: 0, y: 0).u == 102 && canvas.sample(x: 0, y: 0).v == 199)
        #expect(canvas.sample(x: 0, y: 4) == Self.grey)
    }

    @Test func clipsPastTheCanvas() {
        let picture = Self.gradient(8, 8)
        let canvas = Self.compose(Self.layout([Self.region(12, 4, 8, 8)]), pictures: [picture])
        for y in 4..<8 { for x in 12..<16 { #expect(canvas.sample(x: x, y: y).y == UInt8(16 * (x - 12) + (y - 4))) } }
        #expect(canvas.sample(x: 11, y: 4) == Self.grey)
        #expect(canvas.sample(x: 12, y: 3) == Self.grey)
        // Entirely off the canvas: nothing, and no crash.
        let off = Self.compose(Self.layout([Self.region(16, 0, 8, 8), Self.region(-20, -20, 8, 8)]),
                               pictures: [picture, picture])
        #expect(off.sample(x: 15, y: 7) == Self.grey)
    }

    /// An 8x4 source (2:1), columns 0–1 red, 2–5 green, 6–7 blue, into a square 8x8 region.
    @Test(arguments: RenderMode.allCases)
    func renderModes(mode: RenderMode) {
        let source = YUVImage(width: 8, height: 4)
        source.fill(Self.green)
        source.fill(PixelRect(x: 0, y: 0, width: 2, height: 4), with: Self.red)
        source.fill(PixelRect(x: 6, y: 0, width: 2, height: 4), with: Self.blue)
        let rect = PixelRect(x: 4, y: 0, width: 8, height: 8)
        let size = RegionPlacement.scaledSize(source: source.size, region: PixelSize(width: 8, height: 8), mode: mode)
        let layout = Self.layout([Self.region(4, 0, 8, 8, mode: mode, background: Self.white)])
        let canvas = Self.compose(layout, pictures: [Self.scaled(source, to: size)])
        func row(_ y: Int) -> [YUVColor] { (rect.x..<rect.maxX).map { canvas.sample(x: $0, y: y) } }
        let r = Self.red, g = Self.green, b = Self.blue, w = Self.white
        switch mode {
        case .crop:
            // 16x8 centred at x = −4: only the middle (green) shows, every row.
            #expect(size == PixelSize(width: 16, height: 8))
            for y in 0..<8 { #expect(row(y) == Array(repeating: g, count: 8)) }
        case .fit:
            // 8x4 centred at y = 2: bars (region background) above and below.
            #expect(size == PixelSize(width: 8, height: 4))
            for y in [0, 1, 6, 7] { #expect(row(y) == Array(repeating: w, count: 8)) }
            for y in 2..<6 { #expect(row(y) == [r, r, g, g, g, g, b, b]) }
        case .stretch:
            #expect(size == PixelSize(width: 8, height: 8))
            for y in 0..<8 { #expect(row(y) == [r, r, g, g, g, g, b, b]) }
        }
        // Outside the region: the canvas background.
        #expect(canvas.sample(x: 2, y: 3) == Self.grey && canvas.sample(x: 13, y: 3) == Self.grey)
    }

    @Test func regionBackgroundColourAlphaFoldsWithRegionAlpha() {
        var translucent = Self.white
        translucent.alpha = 128
        let layout = Self.layout([Self.region(0, 0, 8, 8, alpha: 128, background: translucent)])
        let canvas = Self.compose(layout, pictures: [nil])
        let weight = UInt8(Blend.divide255(128 * 128))
        #expect(canvas.sample(x: 1, y: 1) == YUVColor(y: Blend.mix(Self.white.y, over: Self.grey.y, alpha: weight),
                                                      u: Blend.mix(128, over: Self.grey.u, alpha: weight),
                                                      v: Blend.mix(128, over: Self.grey.v, alpha: weight)))
    }

    @Test func backgroundImageAlphaShowsTheColourBelow() {
        let background = Self.solid(16, 8, Self.blue, alpha: true)
        for row in 0..<8 { (background.a! + row * background.lumaStride + 8).update(repeating: 0, count: 8) }
        let canvas = Self.compose(Self.layout([]), background: background, pictures: [])
        #expect(canvas.sample(x: 0, y: 0) == Self.blue)
        #expect(canvas.sample(x: 7, y: 7) == Self.blue)
        #expect(canvas.sample(x: 8, y: 0) == Self.grey)
        // An opaque background replaces the colour, and regions draw over it.
        let opaque = Self.solid(16, 8, Self.green)
        let withRegion = Self.compose(Self.layout([Self.region(0, 0, 4, 4)]), background: opaque,
                                      pictures: [Self.solid(4, 4, Self.red)])
        #expect(withRegion.sample(x: 1, y: 1) == Self.red && withRegion.sample(x: 5, y: 5) == Self.green)
    }

    @Test func oddPictureSizesStayOnTheEvenGrid() {
        // A 5x3 picture (a caller's mistake) draws its even 4x2 part without touching chroma outside it.
        let canvas = Self.compose(Self.layout([Self.region(2, 2, 6, 4)]), pictures: [Self.solid(5, 3, Self.red)])
        #expect(canvas.sample(x: 2, y: 2) == Self.red)   // origin: 2 + evenFloor(1/2) = 2
        #expect(canvas.sample(x: 5, y: 3) == Self.red)
        #expect(canvas.sample(x: 6, y: 3) == Self.grey)
        #expect(canvas.sample(x: 2, y: 4) == Self.grey)
    }

    // MARK: Speed

    /// 300 full 720p frames of four tiles; prints ms per frame so a regression shows in the log.
    /// Pass or fail judges the pixels only: speed is measured side by side with ffmpeg in bench/.
    @Test(arguments: [UInt8(255), 128])
    func composesManyFramesOfFourTiles720p(alpha: UInt8) {
        let tiles = [Self.red, Self.green, Self.blue, Self.white].map { Self.solid(640, 360, $0) }
        let regions = (0..<4).map { Self.region(($0 % 2) * 640, ($0 / 2) * 360, 640, 360, alpha: alpha) }
        let layout = Self.layout(regions, width: 1280, height: 720)
        let canvas = YUVImage(width: 1280, height: 720)
        let compositor = Compositor()
        let frames = 300
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<frames { compositor.compose(layout: layout, background: nil, into: canvas) { tiles[$0] } }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)
        print("compose 1280x720, four 640x360 tiles, alpha \(alpha): \(String(format: "%.3f", ms)) ms/frame")
        #expect(canvas.sample(x: 700, y: 400).y == Blend.mix(Self.white.y, over: Self.grey.y, alpha: alpha))
    }
}
