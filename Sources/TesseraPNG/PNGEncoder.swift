import CZlib
import Foundation
import TesseraComposition

/// Turns a composite picture into PNG bytes (layout previews and snapshots): BT.709 limited-range
/// Y'CbCr 4:2:0 back to full-range R'G'B', each chroma sample shared by its 2x2 block of pixels,
/// rows deflated by zlib. No FFmpeg: the API server draws previews with it and never links a codec.
public enum PNGEncoder {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func encode(_ picture: YUVImage) throws -> Data {
        let raw = filteredRows(picture)
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(picture.width))
        header.appendBigEndian(UInt32(picture.height))
        // 8 bits per sample, colour type 2 (RGB), deflate, filter method 0, no interlace.
        header.append(contentsOf: [8, 2, 0, 0, 0])
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", try deflate(raw), to: &png)
        appendChunk("IEND", Data(), to: &png)
        return png
    }

    /// Every row as PNG wants it: a filter byte (0, none) and then R, G, B per pixel.
    static func filteredRows(_ picture: YUVImage) -> [UInt8] {
        let rowBytes = 1 + picture.width * 3
        var raw = [UInt8](repeating: 0, count: rowBytes * picture.height)
        raw.withUnsafeMutableBufferPointer { out in
            for row in 0..<picture.height {
                let luma = picture.y + row * picture.lumaStride
                let cb = picture.u + (row / 2) * picture.chromaStride
                let cr = picture.v + (row / 2) * picture.chromaStride
                var offset = row * rowBytes + 1
                for column in 0..<picture.width {
                    let rgb = BT709.rgb(y: luma[column], cb: cb[column / 2], cr: cr[column / 2])
                    out[offset] = rgb.r; out[offset + 1] = rgb.g; out[offset + 2] = rgb.b
                    offset += 3
                }
            }
        }
        return raw
    }

    private static func deflate(_ bytes: [UInt8]) throws -> Data {
        var capacity = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(capacity))
        let result = compress2(&out, &capacity, bytes, uLong(bytes.count), Z_BEST_SPEED)
        guard result == Z_OK else { throw Failure(description: "cannot compress the PNG's rows (zlib \(result))") }
        return Data(out[0..<Int(capacity)])
    }

    private static func appendChunk(_ type: String, _ body: Data, to png: inout Data) {
        png.appendBigEndian(UInt32(body.count))
        var typed = Data(type.utf8)
        typed.append(body)
        png.append(typed)
        let crc = typed.withUnsafeBytes { raw in
            crc32(0, raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count))
        }
        png.appendBigEndian(UInt32(crc))
    }
}

/// BT.709 limited range (Y' 16–235, Cb/Cr 16–240) to full-range R'G'B', in 16.16 fixed point.
enum BT709 {
    private static let luma: Int32 = 76309      // 1.1644 * 65536
    private static let redFromCr: Int32 = 117489 // 1.7927
    private static let greenFromCb: Int32 = 13975 // 0.2132
    private static let greenFromCr: Int32 = 34925 // 0.5329
    private static let blueFromCb: Int32 = 138438 // 2.1124

    static func rgb(y: UInt8, cb: UInt8, cr: UInt8) -> (r: UInt8, g: UInt8, b: UInt8) {
        let scaledLuma = luma * (Int32(y) - 16) + 32768
        let blueDifference = Int32(cb) - 128, redDifference = Int32(cr) - 128
        return (clamp(scaledLuma + redFromCr * redDifference),
                clamp(scaledLuma - greenFromCb * blueDifference - greenFromCr * redDifference),
                clamp(scaledLuma + blueFromCb * blueDifference))
    }

    private static func clamp(_ value: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(255, max(0, value >> 16))) }
}

private extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
