import Testing
import TesseraComposition

/// `sourceCrop` geometry: the render mode works on the cropped size, the whole source is scaled so
/// the cropped part gets that size, and the compositor shows only that part.
@Suite struct SourceCropPlacementTests {
    @Test func quadrantIntoARegion() {
        let crop = SourceCrop(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        let size = RegionPlacement.scaledSize(source: PixelSize(width: 1280, height: 720), crop: crop,
                                              region: PixelSize(width: 320, height: 180), mode: .crop)
        #expect(size == PixelSize(width: 640, height: 360))
        let place = RegionPlacement.placement(region: PixelRect(x: 100, y: 50, width: 320, height: 180), scaled: size, crop: crop)
        #expect(place.x == 100 - 320 && place.y == 50 - 180)
        #expect(place.visible == PixelRect(x: 100, y: 50, width: 320, height: 180))
    }

    @Test func fitUsesTheCroppedAspect() {
        // A 500x1000 crop (the left half of a square) fits a 400x400 region as 200x400, centred.
        let crop = SourceCrop(x: 0, y: 0, width: 0.5, height: 1)
        let size = RegionPlacement.scaledSize(source: PixelSize(width: 1000, height: 1000), crop: crop,
                                              region: PixelSize(width: 400, height: 400), mode: .fit)
        #expect(size == PixelSize(width: 400, height: 400))
        let place = RegionPlacement.placement(region: PixelRect(x: 0, y: 0, width: 400, height: 400), scaled: size, crop: crop)
        #expect(place.x == 100 && place.y == 0)
        #expect(place.visible == PixelRect(x: 100, y: 0, width: 200, height: 400))
    }

    @Test func cropModeCoversTheRegionWithTheCroppedPart() {
        // Crop a 16:9 source to its centre third (a 640x1080 strip of 1920x1080) for a 9:16 region.
        let crop = SourceCrop(x: 1.0 / 3, y: 0, width: 1.0 / 3, height: 1)
        let size = RegionPlacement.scaledSize(source: PixelSize(width: 1920, height: 1080), crop: crop,
                                              region: PixelSize(width: 360, height: 640), mode: .crop)
        // Cropped 640x1080 covers 360x640 at scale 640/1080: 380x640 (nearest even), whole picture 1140x640.
        #expect(size == PixelSize(width: 1140, height: 640))
        let place = RegionPlacement.placement(region: PixelRect(x: 0, y: 0, width: 360, height: 640), scaled: size, crop: crop)
        #expect(place.visible == PixelRect(x: 0, y: 0, width: 360, height: 640))
        // The part (x 380 in the picture, 380 wide) is centred on the region: it starts at −10.
        #expect(place.x == -10 - 380)
    }

    @Test func noCropIsTheRenderModeAlone() {
        let source = PixelSize(width: 1920, height: 1080), region = PixelSize(width: 640, height: 640)
        for mode in RenderMode.allCases {
            #expect(RegionPlacement.scaledSize(source: source, crop: nil, region: region, mode: mode)
                == RegionPlacement.scaledSize(source: source, region: region, mode: mode))
        }
        let place = RegionPlacement.placement(region: PixelRect(x: 0, y: 0, width: 640, height: 640),
                                              scaled: PixelSize(width: 1138, height: 640), crop: nil)
        #expect(place.x == -250 && place.y == 0 && place.visible == PixelRect(x: 0, y: 0, width: 640, height: 640))
    }

    @Test func scaleIsBounded() {
        let crop = SourceCrop(x: 0, y: 0, width: 0.05, height: 0.05)
        let size = RegionPlacement.scaledSize(source: PixelSize(width: 1920, height: 1080), crop: crop,
                                              region: PixelSize(width: 1920, height: 1080), mode: .stretch)
        #expect(size.width <= RegionPlacement.maxCroppedSourceSide && size.height <= RegionPlacement.maxCroppedSourceSide)
    }

    /// A four-colour source, the top-right quadrant cropped: the whole region shows that colour.
    @Test func compositorShowsOnlyTheCroppedPart() {
        let colors = [YUVColor(y: 81, u: 90, v: 240), YUVColor(y: 145, u: 54, v: 34),
                      YUVColor(y: 41, u: 240, v: 110), YUVColor(y: 235, u: 128, v: 128)]
        let crop = SourceCrop(x: 0.5, y: 0, width: 0.5, height: 0.5)
        let regionRect = PixelRect(x: 4, y: 2, width: 8, height: 4)
        let size = RegionPlacement.scaledSize(source: PixelSize(width: 32, height: 16), crop: crop,
                                              region: PixelSize(width: 8, height: 4), mode: .crop)
        #expect(size == PixelSize(width: 16, height: 8))
        let picture = YUVImage(width: size.width, height: size.height)
        for (index, color) in colors.enumerated() {
            picture.fill(PixelRect(x: (index % 2) * 8, y: (index / 2) * 4, width: 8, height: 4), with: color)
        }
        var region = CompositorTests.region(regionRect.x, regionRect.y, regionRect.width, regionRect.height, mode: .crop)
        region.sourceCrop = crop
        let layout = CompositorTests.layout([region], width: 16, height: 8)
        let canvas = CompositorTests.compose(layout, pictures: [picture])
        for y in 0..<8 { for x in 0..<16 {
            let inside = x >= 4 && x < 12 && y >= 2 && y < 6
            #expect(canvas.sample(x: x, y: y) == (inside ? colors[1] : CompositorTests.grey), "at \(x),\(y)")
        } }
    }
}
