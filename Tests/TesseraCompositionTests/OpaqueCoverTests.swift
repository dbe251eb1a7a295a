import TesseraComposition
import XCTest

final class OpaqueCoverTests: XCTestCase {
    private let canvas = PixelRect(x: 0, y: 0, width: 1280, height: 720)

    func testTwoByTwoGridCoversTheCanvas() {
        var cover = OpaqueCover()
        for index in 0..<4 { cover.add(PixelRect(x: (index % 2) * 640, y: (index / 2) * 360, width: 640, height: 360)) }
        XCTAssertTrue(cover.covers(canvas))
        XCTAssertEqual(cover.uncovered(in: canvas), [])
    }

    func testGapsAreReturnedAsBands() {
        var cover = OpaqueCover()
        cover.add(PixelRect(x: 0, y: 0, width: 640, height: 720))
        cover.add(PixelRect(x: 640, y: 0, width: 640, height: 360))
        XCTAssertFalse(cover.covers(canvas))
        XCTAssertEqual(cover.uncovered(in: canvas), [PixelRect(x: 640, y: 360, width: 640, height: 360)])
    }

    func testHoleInTheMiddle() {
        var cover = OpaqueCover()
        cover.add(PixelRect(x: 0, y: 0, width: 100, height: 40))
        cover.add(PixelRect(x: 0, y: 60, width: 100, height: 40))
        cover.add(PixelRect(x: 0, y: 40, width: 30, height: 20))
        cover.add(PixelRect(x: 70, y: 40, width: 30, height: 20))
        let area = PixelRect(x: 0, y: 0, width: 100, height: 100)
        XCTAssertEqual(cover.uncovered(in: area), [PixelRect(x: 30, y: 40, width: 40, height: 20)])
        XCTAssertTrue(cover.covers(PixelRect(x: 0, y: 0, width: 100, height: 40)))
        XCTAssertFalse(cover.covers(PixelRect(x: 20, y: 30, width: 20, height: 20)))
    }

    func testEmptyCoverLeavesTheWholeArea() {
        XCTAssertEqual(OpaqueCover().uncovered(in: canvas), [canvas])
        XCTAssertTrue(OpaqueCover().covers(PixelRect(x: 5, y: 5, width: 0, height: 3)))
    }

    /// Against a pixel-by-pixel union for random rectangles: the gaps are exactly the uncovered
    /// pixels, and they never overlap.
    func testAgreesWithPixelUnion() {
        var generator = SystemRandomNumberGenerator()
        let area = PixelRect(x: 0, y: 0, width: 64, height: 48)
        for _ in 0..<300 {
            var cover = OpaqueCover()
            var covered = [Bool](repeating: false, count: 64 * 48)
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let rect = PixelRect(x: Int.random(in: -10...60, using: &generator), y: Int.random(in: -10...44, using: &generator),
                                     width: Int.random(in: 0...40, using: &generator), height: Int.random(in: 0...30, using: &generator))
                cover.add(rect)
                let clipped = rect.intersection(area)
                for y in clipped.y..<clipped.maxY { for x in clipped.x..<clipped.maxX { covered[y * 64 + x] = true } }
            }
            var fromGaps = [Int](repeating: 0, count: 64 * 48)
            for gap in cover.uncovered(in: area) {
                for y in gap.y..<gap.maxY { for x in gap.x..<gap.maxX { fromGaps[y * 64 + x] += 1 } }
            }
            for index in 0..<(64 * 48) {
                XCTAssertEqual(fromGaps[index], covered[index] ? 0 : 1, "pixel \(index % 64),\(index / 64)")
            }
            XCTAssertEqual(cover.covers(area), !covered.contains(false))
        }
    }
}
