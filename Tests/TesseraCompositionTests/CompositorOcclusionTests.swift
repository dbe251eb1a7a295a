import Testing
import TesseraComposition

/// What the compositor leaves out (regions under opaque ones, the background under them) must not
/// change a single byte, and every pixel of a reused canvas must still be written each frame.
@Suite struct CompositorOcclusionTests {
    typealias C = CompositorTests
    static let garbage = YUVColor(y: 7, u: 9, v: 11)

    /// Composes into a canvas full of garbage (last frame's picture) and into a fresh one filled
    /// with the background beforehand (as the compositor used to): they must be equal everywhere.
    static func expectSameAsFullRepaint(_ layout: ResolvedLayout, pictures: [YUVImage?], sourceLocation: SourceLocation = #_sourceLocation) {
        let reused = YUVImage(width: layout.canvasWidth, height: layout.canvasHeight)
        reused.fill(garbage)
        Compositor().compose(layout: layout, background: nil, into: reused) { RegionPicture(image: pictures[$0]) }
        let reference = YUVImage(width: layout.canvasWidth, height: layout.canvasHeight)
        reference.fill(layout.backgroundColor)
        for (index, region) in layout.regions.enumerated() {
            guard let picture = pictures[index], region.alpha > 0 else { continue }
            if let colour = region.backgroundColor { reference.fill(region.rect, with: colour, alpha: region.alpha) }
            let place = RegionPlacement.placement(region: region.rect, scaled: picture.size, crop: nil)
            reference.draw(picture, x: place.x, y: place.y, clip: region.rect.intersection(reference.bounds), alpha: region.alpha)
        }
        for y in 0..<layout.canvasHeight {
            for x in 0..<layout.canvasWidth {
                #expect(reused.sample(x: x, y: y) == reference.sample(x: x, y: y), "pixel \(x),\(y)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aGridThatCoversTheCanvasLeavesNoGarbage() {
        let regions = (0..<4).map { C.region(($0 % 2) * 8, ($0 / 2) * 4, 8, 4) }
        Self.expectSameAsFullRepaint(C.layout(regions), pictures: [C.red, C.green, C.blue, C.white].map { C.solid(8, 4, $0) })
    }

    @Test func aRegionUnderAnOpaqueOneIsHiddenAndTheRestStillDrawn() {
        // Bottom: a 12x6 red region; above it a 16x8 opaque blue one that covers it, then a
        // half-transparent white one over part of both.
        let layout = C.layout([C.region(2, 2, 12, 6), C.region(0, 0, 16, 8), C.region(4, 2, 6, 4, alpha: 128)])
        Self.expectSameAsFullRepaint(layout, pictures: [C.solid(12, 6, C.red), C.solid(16, 8, C.blue), C.solid(6, 4, C.white)])
    }

    @Test func translucentAndLetterboxedRegionsDoNotHideWhatIsBelow() {
        // A fit-mode picture with bars and a half-transparent region: neither covers what lies below.
        let layout = C.layout([C.region(0, 0, 16, 8), C.region(0, 0, 16, 8, mode: .fit), C.region(8, 0, 8, 8, alpha: 100)])
        Self.expectSameAsFullRepaint(layout, pictures: [C.solid(16, 8, C.red), C.solid(8, 8, C.green), C.solid(8, 8, C.white)])
    }

    @Test func aRegionWithoutAPictureHidesNothing() {
        let layout = C.layout([C.region(0, 0, 8, 8), C.region(0, 0, 16, 8)])
        Self.expectSameAsFullRepaint(layout, pictures: [C.solid(8, 8, C.red), nil])
    }

    @Test func anOpaqueRegionBackgroundCoversLikeAPicture() {
        let layout = C.layout([C.region(0, 0, 16, 8), C.region(0, 0, 16, 8, mode: .fit, background: C.green)])
        Self.expectSameAsFullRepaint(layout, pictures: [C.solid(16, 8, C.red), C.solid(8, 8, C.blue)])
    }
}
