/// Y'CbCr matrices a source may be tagged with (the luma weights Kr and Kb define each).
public enum YUVMatrix: Sendable, Equatable {
    case bt601, bt709, bt2020, smpte240m, fcc

    var weights: (kr: Double, kb: Double) {
        switch self {
        case .bt601: return (0.299, 0.114)
        case .bt709: return (0.2126, 0.0722)
        case .bt2020: return (0.2627, 0.0593)
        case .smpte240m: return (0.212, 0.087)
        case .fcc: return (0.30, 0.11)
        }
    }
}

/// Converts 8-bit Y'CbCr 4:2:0 pictures from a source's matrix and range to the output's
/// BT.709 limited range, in place, with 14-bit fixed-point integer maths.
///
/// Why here and not in swscale: swscale's matrix-changing path is unvectorised and cost as much as
/// decoding the picture (1.35 s per 10 s of 720p here); on a downscaled picture this pass is
/// a few hundred microseconds.
///
/// The maths: normalised y ∈ [0, 1], pb, pr ∈ [−½, ½]. From the source matrix,
/// R' = y + 2(1−Kr)·pr, B' = y + 2(1−Kb)·pb, G' = (y − Kr·R' − Kb·B') / Kg; then
/// y₇₀₉ = 0.2126 R' + 0.7152 G' + 0.0722 B', pb = (B' − y₇₀₉)/1.8556, pr = (R' − y₇₀₉)/1.5748.
/// That is linear, M·[y pb pr]ᵀ; a grey stays grey, so M's chroma rows have no y term and its
/// luma row has y weight 1. Code values wrap it: limited Y = 16 + 219y, C = 128 + 224p;
/// full Y = 255y, C = 128 + 255p.
public struct ColorConversion: Sendable, Equatable {
    /// The seven 256-entry look-up tables `apply` runs on, in that order.
    private let tables: [Int32]
    private static let shift: Int32 = 14
    private static let one = Double(1 << 14)

    /// nil when the source already is BT.709 limited range: nothing to do.
    public init?(from matrix: YUVMatrix, fullRange: Bool) {
        if matrix == .bt709 && !fullRange { return nil }
        let m = Self.matrix(from: matrix.weights, to: YUVMatrix.bt709.weights)
        let inLuma = fullRange ? 255.0 : 219.0, inChroma = fullRange ? 255.0 : 224.0
        let outLuma = 219.0, outChroma = 224.0
        func fixed(_ value: Double) -> Int32 { Int32((value * Self.one).rounded()) }
        tables = Self.tables(lumaScale: fixed(outLuma / inLuma * m[0][0]), lumaInOffset: fullRange ? 0 : 16,
                             lumaFromCb: fixed(outLuma / inChroma * m[0][1]), lumaFromCr: fixed(outLuma / inChroma * m[0][2]),
                             cbFromCb: fixed(outChroma / inChroma * m[1][1]), cbFromCr: fixed(outChroma / inChroma * m[1][2]),
                             crFromCb: fixed(outChroma / inChroma * m[2][1]), crFromCr: fixed(outChroma / inChroma * m[2][2]))
    }

    private static func tables(lumaScale: Int32, lumaInOffset: Int32, lumaFromCb: Int32, lumaFromCr: Int32,
                               cbFromCb: Int32, cbFromCr: Int32, crFromCb: Int32, crFromCr: Int32) -> [Int32] {
        let round: Int32 = 1 << (shift - 1)
        var tables = [Int32](repeating: 0, count: 256 * 7)
        for value in 0..<256 {
            let code = Int32(value), chroma = code - 128
            // Offsets and rounding folded into the luma and Cb tables so the loops only add.
            tables[value] = lumaScale * (code - lumaInOffset) + round + (16 << shift)
            tables[256 + value] = lumaFromCb * chroma
            tables[512 + value] = lumaFromCr * chroma
            tables[768 + value] = cbFromCb * chroma + round + (128 << shift)
            tables[1024 + value] = cbFromCr * chroma
            tables[1280 + value] = crFromCb * chroma + round + (128 << shift)
            tables[1536 + value] = crFromCr * chroma
        }
        return tables
    }

    /// Rewrites `image`'s Y, Cb and Cr planes in place (alpha untouched).
    ///
    /// Every term is a function of one 8-bit value, so each is a 256-entry table (built once, with
    /// the conversion); the inner loops are then two table look-ups per luma pixel (the chroma
    /// term is shared by the two pixels of a pair) and four per chroma pair.
    public func apply(to image: YUVImage) {
        tables.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let lumaTerm = base, lumaCb = base + 256, lumaCr = base + 512
            let cbCb = base + 768, cbCr = base + 1024, crCb = base + 1280, crCr = base + 1536
            // Luma first: it reads the chroma planes before they are rewritten.
            let pairs = image.width / 2
            for row in 0..<image.height {
                let luma = image.y + row * image.lumaStride
                let cb = image.u + (row / 2) * image.chromaStride
                let cr = image.v + (row / 2) * image.chromaStride
                for pair in 0..<pairs {
                    let chroma = lumaCb[Int(cb[pair])] + lumaCr[Int(cr[pair])]
                    let left = 2 * pair
                    luma[left] = Self.clamp((lumaTerm[Int(luma[left])] + chroma) >> Self.shift)
                    luma[left + 1] = Self.clamp((lumaTerm[Int(luma[left + 1])] + chroma) >> Self.shift)
                }
                if image.width & 1 == 1 {
                    let last = image.width - 1
                    let chroma = lumaCb[Int(cb[last / 2])] + lumaCr[Int(cr[last / 2])]
                    luma[last] = Self.clamp((lumaTerm[Int(luma[last])] + chroma) >> Self.shift)
                }
            }
            for row in 0..<image.chromaHeight {
                let cb = image.u + row * image.chromaStride
                let cr = image.v + row * image.chromaStride
                for column in 0..<image.chromaWidth {
                    let u = Int(cb[column]), v = Int(cr[column])
                    cb[column] = Self.clamp((cbCb[u] + cbCr[v]) >> Self.shift)
                    cr[column] = Self.clamp((crCb[u] + crCr[v]) >> Self.shift)
                }
            }
        }
    }

    @inline(__always)
    private static func clamp(_ value: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(255, max(0, value))) }

    /// M such that [y pb pr]₇₀₉ = M · [y pb pr]source, found by pushing each basis vector
    /// through source → R'G'B' → destination.
    private static func matrix(from source: (kr: Double, kb: Double), to destination: (kr: Double, kb: Double)) -> [[Double]] {
        func convert(_ y: Double, _ pb: Double, _ pr: Double) -> [Double] {
            let kg = 1 - source.kr - source.kb
            let r = y + 2 * (1 - source.kr) * pr
            let b = y + 2 * (1 - source.kb) * pb
            let g = (y - source.kr * r - source.kb * b) / kg
            let y2 = destination.kr * r + (1 - destination.kr - destination.kb) * g + destination.kb * b
            return [y2, (b - y2) / (2 * (1 - destination.kb)), (r - y2) / (2 * (1 - destination.kr))]
        }
        let columns = [convert(1, 0, 0), convert(0, 1, 0), convert(0, 0, 1)]
        return (0..<3).map { row in (0..<3).map { column in columns[column][row] } }
    }
}
