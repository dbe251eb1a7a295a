import TesseraComposition
import XCTest

final class AreaDownscaleTests: XCTestCase {
    func testOnlyExactEvenHalvesQualify() {
        XCTAssertTrue(AreaDownscale.halves(PixelSize(width: 1280, height: 720), to: PixelSize(width: 640, height: 360)))
        XCTAssertTrue(AreaDownscale.halves(PixelSize(width: 4, height: 4), to: PixelSize(width: 2, height: 2)))
        // Half one way only, a third, an upscale, an odd target (its chroma plane would not halve
        // with it), the same size.
        XCTAssertFalse(AreaDownscale.halves(PixelSize(width: 1280, height: 720), to: PixelSize(width: 640, height: 240)))
        XCTAssertFalse(AreaDownscale.halves(PixelSize(width: 1920, height: 1080), to: PixelSize(width: 640, height: 360)))
        XCTAssertFalse(AreaDownscale.halves(PixelSize(width: 640, height: 360), to: PixelSize(width: 1280, height: 720)))
        XCTAssertFalse(AreaDownscale.halves(PixelSize(width: 1278, height: 718), to: PixelSize(width: 639, height: 359)))
        XCTAssertFalse(AreaDownscale.halves(PixelSize(width: 640, height: 360), to: PixelSize(width: 640, height: 360)))
    }

    /// Widths on and off the 16-sample SIMD step, rows with padding: each sample is the rounded
    /// mean of its 2 x 2 block, and nothing past a row's width is written.
    func testEverySampleIsTheRoundedMeanOfItsBlock() {
        var generator = SystemRandomNumberGenerator()
        for width in [1, 15, 16, 17, 33, 64, 101, 640] {
            let height = 7
            let sourceStride = 2 * width + 5, targetStride = width + 3
            let source = (0..<(sourceStride * 2 * height)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var target = [UInt8](repeating: 0xA5, count: targetStride * height)
            source.withUnsafeBufferPointer { from in
                target.withUnsafeMutableBufferPointer { into in
                    AreaDownscale.halve(from.baseAddress!, stride: sourceStride, into: into.baseAddress!,
                                        stride: targetStride, width: width, height: height)
                }
            }
            for row in 0..<height {
                for column in 0..<width {
                    let top = (2 * row) * sourceStride + 2 * column, bottom = top + sourceStride
                    let sum = Int(source[top]) + Int(source[top + 1]) + Int(source[bottom]) + Int(source[bottom + 1])
                    XCTAssertEqual(Int(target[row * targetStride + column]), (sum + 2) / 4,
                                   "width \(width), sample (\(column), \(row))")
                }
                for padding in width..<targetStride {
                    XCTAssertEqual(target[row * targetStride + padding], 0xA5, "padding written at width \(width)")
                }
            }
        }
    }

    func testFlatBlocksKeepTheirValueAndHalfwayRoundsUp() {
        // (0, 1, 0, 1) sums to 2: a mean of 0.5 rounds to 1; four 255s stay 255, in the SIMD lanes
        // (the first 16 samples) and in the tail alike.
        let row: [UInt8] = (0..<17).flatMap { $0 % 2 == 0 ? [0, 1] : [255, 255] as [UInt8] }
        let source = row + row
        var target = [UInt8](repeating: 0, count: 17)
        source.withUnsafeBufferPointer { from in
            target.withUnsafeMutableBufferPointer { into in
                AreaDownscale.halve(from.baseAddress!, stride: 34, into: into.baseAddress!, stride: 17, width: 17, height: 1)
            }
        }
        XCTAssertEqual(target, (0..<17).map { $0 % 2 == 0 ? 1 : 255 })
    }
}
