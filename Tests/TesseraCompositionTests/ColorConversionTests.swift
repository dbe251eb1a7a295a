import Testing
import TesseraComposition

/// Source pictures tagged with another matrix or range must come out as the same R'G'B' colour
/// in the output's BT.709 limited range.
struct ColorConversionTests {
    /// Y'CbCr code values of an R'G'B' colour under a matrix (Kr, Kb) and range.
    static func encode(_ rgb: (Double, Double, Double), kr: Double, kb: Double, fullRange: Bool) -> (UInt8, UInt8, UInt8) {
        let (r, g, b) = (rgb.0 / 255, rgb.1 / 255, rgb.2 / 255)
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let pb = (b - y) / (2 * (1 - kb)), pr = (r - y) / (2 * (1 - kr))
        func code(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        if fullRange { return (code(255 * y), code(128 + 255 * pb), code(128 + 255 * pr)) }
        return (code(16 + 219 * y), code(128 + 224 * pb), code(128 + 224 * pr))
    }

    static let colours: [(Double, Double, Double)] = [
        (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (128, 128, 128), (200, 120, 40), (30, 200, 180),
    ]

    @Test(arguments: [(YUVMatrix.bt601, false), (.bt601, true), (.bt709, true), (.bt2020, false)])
    func convertsToBT709Limited(matrix: YUVMatrix, fullRange: Bool) throws {
        let weights: (Double, Double) = switch matrix {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        case .bt2020: (0.2627, 0.0593)
        default: (0.299, 0.114)
        }
        let conversion = try #require(ColorConversion(from: matrix, fullRange: fullRange))
        for rgb in Self.colours {
            let source = Self.encode(rgb, kr: weights.0, kb: weights.1, fullRange: fullRange)
            let image = YUVImage(width: 4, height: 2)
            image.fill(YUVColor(y: source.0, u: source.1, v: source.2))
            conversion.apply(to: image)
            let expected = YUVColor(red: UInt8(rgb.0), green: UInt8(rgb.1), blue: UInt8(rgb.2))
            for x in 0..<4 {
                let got = image.sample(x: x, y: 1)
                #expect(abs(Int(got.y) - Int(expected.y)) <= 2, "Y of \(rgb) from \(matrix): \(got.y) vs \(expected.y)")
                #expect(abs(Int(got.u) - Int(expected.u)) <= 2, "Cb of \(rgb) from \(matrix): \(got.u) vs \(expected.u)")
                #expect(abs(Int(got.v) - Int(expected.v)) <= 2, "Cr of \(rgb) from \(matrix): \(got.v) vs \(expected.v)")
            }
        }
    }

    @Test func bt709LimitedNeedsNoConversion() {
        #expect(ColorConversion(from: .bt709, fullRange: false) == nil)
    }
}
