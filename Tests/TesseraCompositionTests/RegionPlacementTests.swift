import Testing
import TesseraComposition

@Suite struct RegionPlacementTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var source: (Int, Int), region: (Int, Int), mode: RenderMode, expected: (Int, Int)
        var testDescription: String { "\(source) → \(region) \(mode) = \(expected)" }
    }

    @Test(arguments: [
        // Same aspect: every mode is the region.
        Case(source: (1920, 1080), region: (640, 360), mode: .crop, expected: (640, 360)),
        Case(source: (1920, 1080), region: (640, 360), mode: .fit, expected: (640, 360)),
        Case(source: (1920, 1080), region: (640, 360), mode: .stretch, expected: (640, 360)),
        // 16:9 into 4:3. crop: s = 480/720, w = 853.3 → 854. fit: s = 640/1280 → 640x360.
        Case(source: (1280, 720), region: (640, 480), mode: .crop, expected: (854, 480)),
        Case(source: (1280, 720), region: (640, 480), mode: .fit, expected: (640, 360)),
        Case(source: (1280, 720), region: (640, 480), mode: .stretch, expected: (640, 480)),
        // Portrait into landscape. fit: w = 720·360/1280 = 202.5 → 202. crop: h = 1280·640/720 = 1137.8 → 1138.
        Case(source: (720, 1280), region: (640, 360), mode: .fit, expected: (202, 360)),
        Case(source: (720, 1280), region: (640, 360), mode: .crop, expected: (640, 1138)),
        // Odd sizes snap even: 641x361 counts as 640x360.
        Case(source: (641, 361), region: (641, 361), mode: .stretch, expected: (640, 360)),
        Case(source: (333, 333), region: (641, 361), mode: .fit, expected: (360, 360)),
        Case(source: (333, 333), region: (641, 361), mode: .crop, expected: (640, 640)),
        // Extreme aspect: fit keeps at least 2 lines.
        Case(source: (1000, 10), region: (100, 100), mode: .fit, expected: (100, 2)),
        Case(source: (1000, 1), region: (100, 100), mode: .fit, expected: (100, 2)),
        // No source size: stretched.
        Case(source: (0, 0), region: (100, 50), mode: .crop, expected: (100, 50)),
    ])
    func scaledSize(_ c: Case) {
        let size = RegionPlacement.scaledSize(source: PixelSize(width: c.source.0, height: c.source.1),
                                              region: PixelSize(width: c.region.0, height: c.region.1), mode: c.mode)
        #expect(size == PixelSize(width: c.expected.0, height: c.expected.1))
        #expect(size.width % 2 == 0 && size.height % 2 == 0)
    }

    @Test func scaledSizesAreEvenAndRespectTheRegion() {
        for sw in stride(from: 1, through: 61, by: 3) {
            for sh in stride(from: 1, through: 47, by: 5) {
                for (rw, rh) in [(2, 2), (10, 6), (32, 18), (17, 9), (100, 40)] {
                    let source = PixelSize(width: sw, height: sh), region = PixelSize(width: rw, height: rh)
                    let crop = RegionPlacement.scaledSize(source: source, region: region, mode: .crop)
                    let fit = RegionPlacement.scaledSize(source: source, region: region, mode: .fit)
                    let ew = rw / 2 * 2, eh = rh / 2 * 2
                    #expect(crop.width % 2 == 0 && crop.height % 2 == 0 && fit.width % 2 == 0 && fit.height % 2 == 0)
                    #expect(crop.width >= ew && crop.height >= eh && (crop.width == ew || crop.height == eh))
                    #expect(fit.width <= ew && fit.height <= eh && fit.width >= 2 && fit.height >= 2)
                    #expect(fit.width == ew || fit.height == eh)
                }
            }
        }
    }

    @Test func originCentresCropAndFit() {
        let region = PixelRect(x: 10, y: 20, width: 640, height: 480)
        // crop 854x480: (640 − 854) / 2 = −107 → even floor −108.
        #expect(RegionPlacement.origin(region: region, scaled: PixelSize(width: 854, height: 480)) == (-98, 20))
        // fit 640x360: bars of 60 above and below.
        #expect(RegionPlacement.origin(region: region, scaled: PixelSize(width: 640, height: 360)) == (10, 80))
        // A difference of 2 splits as 0 / 2 (1 floors to even 0).
        #expect(RegionPlacement.origin(region: PixelRect(x: -4, y: 0, width: 8, height: 8),
                                       scaled: PixelSize(width: 6, height: 6)) == (-4, 0))
        // A difference of −2 (crop by 2) gives −2.
        #expect(RegionPlacement.origin(region: PixelRect(x: 0, y: 0, width: 8, height: 8),
                                       scaled: PixelSize(width: 10, height: 8)) == (-2, 0))
    }

    @Test(arguments: [(-4, -4, -4), (-3, -4, -2), (-1, -2, 0), (0, 0, 0), (1, 0, 2), (7, 6, 8), (8, 8, 8)])
    func evenRounding(value: Int, floor: Int, ceil: Int) {
        #expect(RegionPlacement.evenFloor(value) == floor)
        #expect(RegionPlacement.evenCeil(value) == ceil)
    }
}
