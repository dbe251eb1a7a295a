import Testing
import TesseraComposition

@Suite struct LayoutPreviewTests {
    static let background = YUVColor(y: 16, u: 128, v: 128)

    static func region(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> ResolvedRegion {
        ResolvedRegion(documentIndex: 0, content: .input(0), rect: PixelRect(x: x, y: y, width: w, height: h),
                       alpha: 255, renderMode: .crop, backgroundColor: nil, placeholderImage: nil)
    }

    static func blended(_ color: YUVColor, over below: YUVColor) -> YUVColor {
        let a = LayoutPreview.fillAlpha
        return YUVColor(y: Blend.mix(color.y, over: below.y, alpha: a), u: Blend.mix(color.u, over: below.u, alpha: a),
                        v: Blend.mix(color.v, over: below.v, alpha: a))
    }

    @Test func boxesGoWhereTheRegionsAre() {
        let layout = ResolvedLayout(canvasWidth: 128, canvasHeight: 64, backgroundColor: Self.background, backgroundImage: nil,
                                    regions: [Self.region(16, 8, 96, 48), Self.region(80, 24, 64, 48)])
        let image = LayoutPreview.render(layout: layout, labels: ["anchor", "guest"])
        #expect(image.width == 128 && image.height == 64)
        let first = LayoutPreview.palette[0], second = LayoutPreview.palette[1]
        // Outside every region: the background.
        #expect(image.sample(x: 4, y: 4) == Self.background)
        #expect(image.sample(x: 14, y: 60) == Self.background)
        // Region 1: opaque 2-px border on all four sides, translucent inside.
        #expect(image.sample(x: 16, y: 30) == first && image.sample(x: 17, y: 30) == first)
        #expect(image.sample(x: 60, y: 8) == first && image.sample(x: 60, y: 55) == first)
        #expect(image.sample(x: 18, y: 50) == Self.blended(first, over: Self.background))
        // Region 2 draws over region 1; its off-canvas right and bottom edges are clipped away.
        #expect(image.sample(x: 80, y: 40) == second)
        #expect(image.sample(x: 100, y: 52) == Self.blended(second, over: Self.blended(first, over: Self.background)))
        #expect(image.sample(x: 126, y: 63) == Self.blended(second, over: Self.background))
        // Label: a dark backing box with white text, at the top-left inside the border.
        let scale = LayoutPreview.textScale(canvasHeight: 64)
        let ink = (0..<(7 * scale)).flatMap { dy in (0..<20).map { dx in image.sample(x: 22 + dx, y: 14 + dy).y } }
        #expect(ink.contains(235))                           // white text
        #expect(image.sample(x: 18, y: 10).y < 40)           // the backing box's padding
    }

    @Test func partlyOffCanvasRegionHasNoBorderOnItsHiddenEdges() {
        let layout = ResolvedLayout(canvasWidth: 64, canvasHeight: 32, backgroundColor: Self.background, backgroundImage: nil,
                                    regions: [Self.region(-10, -10, 40, 30)])
        let image = LayoutPreview.render(layout: layout, labels: [""])
        let color = LayoutPreview.palette[0]
        #expect(image.sample(x: 28, y: 16) == color)        // right border (x 28–29)
        #expect(image.sample(x: 10, y: 18) == color)        // bottom border (y 18–19)
        #expect(image.sample(x: 0, y: 16) == Self.blended(color, over: Self.background))
        #expect(image.sample(x: 30, y: 16) == Self.background)
    }

    @Test func textScaleGrowsWithTheCanvas() {
        #expect(LayoutPreview.textScale(canvasHeight: 360) == 2)
        #expect(LayoutPreview.textScale(canvasHeight: 1080) == 3)
    }

    @Test func fontDrawsTheGlyphBitmaps() {
        let white = YUVColor(y: 235, u: 128, v: 128)
        func blank() -> YUVImage { let image = YUVImage(width: 12, height: 8); image.fill(Self.background); return image }
        let image = blank()
        BitmapFont.draw(text: "1", at: (0, 0), scale: 1, color: white, into: image)
        let rows = (0..<7).map { y in String((0..<5).map { image.sample(x: $0, y: y).y == 235 ? "#" : "." }) }
        #expect(rows == ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."])
        #expect(BitmapFont.size(of: "ab", scale: 2) == PixelSize(width: 22, height: 14))
        // Lower case draws as upper case.
        let lower = blank(), upper = blank()
        BitmapFont.draw(text: "x", at: (0, 0), scale: 1, color: white, into: lower)
        BitmapFont.draw(text: "X", at: (0, 0), scale: 1, color: white, into: upper)
        #expect((0..<8).allSatisfy { y in (0..<12).allSatisfy { lower.sample(x: $0, y: y) == upper.sample(x: $0, y: y) } })
        // Nothing leaks past the clip.
        let clipped = blank()
        BitmapFont.draw(text: "##", at: (-3, -1), scale: 2, color: white, into: clipped,
                        clip: PixelRect(x: 0, y: 0, width: 4, height: 4))
        #expect((4..<12).allSatisfy { x in (0..<8).allSatisfy { clipped.sample(x: x, y: $0).y == 16 } })
        #expect((0..<4).contains { x in (0..<4).contains { clipped.sample(x: x, y: $0).y == 235 } })
    }
}
