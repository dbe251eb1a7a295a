import Testing
import TesseraComposition

/// `ResolvedLayout.largestDrawSize`: the SFU hint `inputs[].drawSize`.
@Suite struct LayoutDrawSizeTests {
    static func region(_ content: ResolvedRegion.Content, _ width: Int, _ height: Int, mode: RenderMode = .crop,
                       crop: SourceCrop? = nil) -> ResolvedRegion {
        ResolvedRegion(documentIndex: 0, content: content, rect: PixelRect(x: 0, y: 0, width: width, height: height),
                       alpha: 255, renderMode: mode, backgroundColor: nil, placeholderImage: nil, sourceCrop: crop)
    }

    static func layout(_ regions: [ResolvedRegion]) -> ResolvedLayout {
        ResolvedLayout(canvasWidth: 1280, canvasHeight: 720, backgroundColor: .black, backgroundImage: nil, regions: regions)
    }

    static let hd = PixelSize(width: 1280, height: 720)

    @Test func aCropRegionIsCoveredByTheScaledPicture() {
        let layout = Self.layout([Self.region(.input(0), 320, 180)])
        #expect(layout.largestDrawSize(inputIndex: 0, displaySize: Self.hd) == PixelSize(width: 320, height: 180))
        // A 4:3 picture into a 16:9 region: crop covers it, the height overflows.
        #expect(layout.largestDrawSize(inputIndex: 0, displaySize: PixelSize(width: 640, height: 480))
                == PixelSize(width: 320, height: 240))
    }

    @Test func fitAndSourceCropFollowThePlacement() {
        let fit = Self.layout([Self.region(.input(0), 320, 320, mode: .fit)])
        #expect(fit.largestDrawSize(inputIndex: 0, displaySize: Self.hd) == PixelSize(width: 320, height: 180))
        // Showing the left half: the whole picture is scaled so that half covers the region.
        let half = Self.layout([Self.region(.input(0), 320, 360, crop: SourceCrop(x: 0, y: 0, width: 0.5, height: 1))])
        #expect(half.largestDrawSize(inputIndex: 0, displaySize: Self.hd) == PixelSize(width: 640, height: 360))
    }

    @Test func theLargestOfSeveralRegionsWins() {
        let layout = Self.layout([Self.region(.input(0), 320, 180), Self.region(.input(1), 1280, 720),
                                  Self.region(.input(0), 640, 360), Self.region(.input(0), 160, 90)])
        #expect(layout.drawSizes(inputIndex: 0, displaySize: Self.hd).count == 3)
        #expect(layout.largestDrawSize(inputIndex: 0, displaySize: Self.hd) == PixelSize(width: 640, height: 360))
        #expect(layout.largestDrawSize(inputIndex: 1, displaySize: Self.hd) == Self.hd)
    }

    @Test func beforeTheFirstPictureTheRegionSizeStandsIn() {
        let layout = Self.layout([Self.region(.input(0), 322, 181, crop: SourceCrop(x: 0, y: 0, width: 0.5, height: 0.5))])
        #expect(layout.largestDrawSize(inputIndex: 0, displaySize: nil) == PixelSize(width: 322, height: 180))
    }

    @Test func anInputInNoRegionHasNoDrawSize() {
        let layout = Self.layout([Self.region(.input(1), 320, 180), Self.region(.image(path: "/logo.png"), 100, 100)])
        #expect(layout.largestDrawSize(inputIndex: 0, displaySize: Self.hd) == nil)
        #expect(layout.drawSizes(inputIndex: 0, displaySize: nil).isEmpty)
    }
}
