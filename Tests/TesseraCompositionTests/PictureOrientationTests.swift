import Testing
import TesseraComposition

@Suite struct PictureOrientationTests {
    /// A 3x2 plane `1 2 3 / 4 5 6` turned every way, read back row by row.
    static func turned(_ orientation: PictureOrientation) -> [[UInt8]] {
        let source: [UInt8] = [1, 2, 3, 0xEE, 4, 5, 6, 0xEE]  // stride 4: the padding must never move
        var destination = [UInt8](repeating: 0, count: 3 * 5)  // stride 5 for any turned size
        let size = orientation.displayedSize(of: PixelSize(width: 3, height: 2))
        source.withUnsafeBufferPointer { from in
            destination.withUnsafeMutableBufferPointer { to in
                orientation.apply(from: PlaneView(base: UnsafeMutablePointer(mutating: from.baseAddress!), stride: 4),
                                  width: 3, height: 2, to: PlaneView(base: to.baseAddress!, stride: 5))
            }
        }
        return (0..<size.height).map { row in Array(destination[(row * 5)..<(row * 5 + size.width)]) }
    }

    @Test(arguments: [
        (0, false, [[1, 2, 3], [4, 5, 6]]),
        (1, false, [[4, 1], [5, 2], [6, 3]]),          // clockwise: the left column becomes the top row
        (2, false, [[6, 5, 4], [3, 2, 1]]),
        (3, false, [[3, 6], [2, 5], [1, 4]]),
        (0, true, [[3, 2, 1], [6, 5, 4]]),             // left-right mirror
        (1, true, [[6, 3], [5, 2], [4, 1]]),           // mirror, then clockwise
        (2, true, [[4, 5, 6], [1, 2, 3]]),             // = upside-down mirror
        (3, true, [[1, 4], [2, 5], [3, 6]]),           // = transpose
    ] as [(Int, Bool, [[UInt8]])])
    func turnsAPlaneExactly(turns: Int, mirrored: Bool, expected: [[UInt8]]) {
        #expect(Self.turned(PictureOrientation(quarterTurns: turns, mirrored: mirrored)) == expected)
    }

    @Test func turnsEveryPlaneOfAPicture() {
        // 4x2 luma 10...17, chroma 2x1: Cb 100 101, Cr 200 201; alpha 30...37.
        let image = YUVImage(width: 4, height: 2, hasAlpha: true)
        for y in 0..<2 { for x in 0..<4 {
            image.y[y * image.lumaStride + x] = UInt8(10 + y * 4 + x)
            image.a![y * image.lumaStride + x] = UInt8(30 + y * 4 + x)
        } }
        image.u[0] = 100; image.u[1] = 101
        image.v[0] = 200; image.v[1] = 201
        let turned = image.oriented(PictureOrientation(quarterTurns: 1))
        #expect(turned.size == PixelSize(width: 2, height: 4))
        #expect((0..<4).map { row in [turned.y[row * turned.lumaStride], turned.y[row * turned.lumaStride + 1]] }
                == [[14, 10], [15, 11], [16, 12], [17, 13]])
        #expect((0..<4).map { row in turned.a![row * turned.lumaStride + 1] } == [30, 31, 32, 33])
        #expect(turned.chromaWidth == 1 && turned.chromaHeight == 2)
        #expect([turned.u[0], turned.u[turned.chromaStride]] == [100, 101])
        #expect([turned.v[0], turned.v[turned.chromaStride]] == [200, 201])
    }

    @Test func oddSizesKeepTheirChroma() {
        // 3x1 luma has 2x1 chroma; turned it is 1x3 with 1x2 chroma, the same samples.
        let image = YUVImage(width: 3, height: 1)
        image.u[0] = 1; image.u[1] = 2
        let turned = image.oriented(PictureOrientation(quarterTurns: 3))
        #expect(turned.size == PixelSize(width: 1, height: 3))
        #expect([turned.u[0], turned.u[turned.chromaStride]] == [2, 1])
    }

    @Test func uprightIsTheSameImage() {
        let image = YUVImage(width: 2, height: 2)
        #expect(image.oriented(.upright) === image)
    }

    @Test func sizesSwapOnQuarterTurns() {
        let coded = PixelSize(width: 1920, height: 1080)
        #expect(PictureOrientation(quarterTurns: 1).displayedSize(of: coded) == PixelSize(width: 1080, height: 1920))
        #expect(PictureOrientation(quarterTurns: 2, mirrored: true).displayedSize(of: coded) == coded)
        #expect(PictureOrientation(quarterTurns: 3).codedSize(displayedAs: PixelSize(width: 90, height: 160))
                == PixelSize(width: 160, height: 90))
        #expect(PictureOrientation(quarterTurns: -1) == PictureOrientation(quarterTurns: 3))
        #expect(PictureOrientation(clockwiseDegrees: -90).rotationDegrees == 270)
        #expect(PictureOrientation(clockwiseDegrees: 44).isUpright)
    }

    // MARK: Display matrix

    static let one: Int32 = 1 << 16

    /// ffmpeg 5.1's MP4 muxer for `-metadata:s:v:0 rotate=N` (ffprobe shows rotation −N).
    @Test(arguments: [(90, 1), (180, 2), (270, 3), (0, 0)])
    func readsTheMatricesFFmpegWrites(rotate: Int, turns: Int) {
        let o = Self.one
        let matrix: [Int32] = switch rotate {
        case 90: [0, o, 0, -o, 0, 0, 1080 << 16, 0, 1 << 30]
        case 180: [-o, 0, 0, 0, -o, 0, 1920 << 16, 1080 << 16, 1 << 30]
        case 270: [0, -o, 0, o, 0, 0, 0, 1920 << 16, 1 << 30]
        default: [o, 0, 0, 0, o, 0, 0, 0, 1 << 30]
        }
        #expect(PictureOrientation(displayMatrix: matrix) == PictureOrientation(quarterTurns: turns))
    }

    /// Every one of the eight matrices with entries 0 / ±1 moves each corner where `destination`
    /// says (the matrix's translation only brings the picture back to the origin).
    @Test func everyDihedralMatrixMatchesTheKernel() {
        let units: [(Int, Int, Int, Int)] = [(1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
                                             (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0)]
        let width = 5, height = 3
        var seen = Set<PictureOrientation>()
        for (a, b, c, d) in units {
            let matrix: [Int32] = [Int32(a) * Self.one, Int32(b) * Self.one, 0, Int32(c) * Self.one, Int32(d) * Self.one, 0, 0, 0, 1 << 30]
            let orientation = PictureOrientation(displayMatrix: matrix)
            seen.insert(orientation)
            let points = (0..<height).flatMap { y in (0..<width).map { x in (x, y) } }
            let mapped = points.map { (a * $0.0 + c * $0.1, b * $0.0 + d * $0.1) }
            let minX = mapped.map(\.0).min()!, minY = mapped.map(\.1).min()!
            for (point, target) in zip(points, mapped) {
                let got = orientation.destination(ofX: point.0, y: point.1, width: width, height: height)
                #expect(got.x == target.0 - minX && got.y == target.1 - minY, "matrix \(a) \(b) \(c) \(d) at \(point)")
            }
        }
        #expect(seen.count == 8)
    }

    @Test func mirrorsAreTheNegativeDeterminant() {
        let o = Self.one
        #expect(PictureOrientation(displayMatrix: [-o, 0, 0, 0, o, 0, 0, 0, 1 << 30]) == PictureOrientation(quarterTurns: 0, mirrored: true))
        #expect(PictureOrientation(displayMatrix: [o, 0, 0, 0, -o, 0, 0, 0, 1 << 30]) == PictureOrientation(quarterTurns: 2, mirrored: true))
        #expect(PictureOrientation(displayMatrix: [0, 0, 0, 0, 0, 0, 0, 0, 0]).isUpright)
        #expect(PictureOrientation(displayMatrix: []).isUpright)
    }
}
