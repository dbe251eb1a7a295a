import CZlib
import Foundation
import TesseraComposition
import TesseraPNG
import Testing

@Suite struct PNGEncoderTests {
    /// A 64x32 picture, left half red and right half blue, read back through zlib: the chunks, the
    /// size and the colours a viewer sees (within the rounding of one limited-range round trip).
    @Test func aTwoColourPictureReadsBackAsItsColours() throws {
        let picture = YUVImage(width: 64, height: 32)
        picture.fill(PixelRect(x: 0, y: 0, width: 32, height: 32), with: YUVColor(red: 255, green: 0, blue: 0))
        picture.fill(PixelRect(x: 32, y: 0, width: 32, height: 32), with: YUVColor(red: 0, green: 0, blue: 255))
        let png = try PNGEncoder.encode(picture)

        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let chunks = try Self.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(Array(chunks[0].body) == [0, 0, 0, 64, 0, 0, 0, 32, 8, 2, 0, 0, 0])

        let rows = try Self.inflate(chunks[1].body, size: 32 * (1 + 64 * 3))
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(rows[y * (1 + 64 * 3) + 1 + x * 3 + $0]) } }
        for (x, y) in [(5, 5), (20, 30), (31, 0)] { #expect(zip(pixel(x, y), [255, 0, 0]).allSatisfy { abs($0 - $1) <= 2 }) }
        for (x, y) in [(32, 0), (50, 16), (63, 31)] { #expect(zip(pixel(x, y), [0, 0, 255]).allSatisfy { abs($0 - $1) <= 2 }) }
        #expect(stride(from: 0, to: rows.count, by: 1 + 64 * 3).allSatisfy { rows[$0] == 0 }, "every row's filter byte is 0")
    }

    @Test func midGreyAndBlackMapToTheirFullRangeValues() throws {
        let picture = YUVImage(width: 2, height: 2)
        picture.fill(PixelRect(x: 0, y: 0, width: 2, height: 2), with: YUVColor(y: 16, u: 128, v: 128))
        let black = try Self.inflate(try Self.chunks(try PNGEncoder.encode(picture))[1].body, size: 2 * 7)
        #expect(Array(black[1...6]) == [0, 0, 0, 0, 0, 0])
        picture.fill(PixelRect(x: 0, y: 0, width: 2, height: 2), with: YUVColor(y: 235, u: 128, v: 128))
        let white = try Self.inflate(try Self.chunks(try PNGEncoder.encode(picture))[1].body, size: 2 * 7)
        #expect(Array(white[1...6]) == [255, 255, 255, 255, 255, 255])
    }

    private static func chunks(_ png: Data) throws -> [(type: String, body: Data)] {
        var result: [(String, Data)] = []
        let bytes = [UInt8](png)
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let typedAndBody = bytes[offset + 4..<offset + 8 + length]
            let stored = bytes[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let computed = Array(typedAndBody).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            #expect(UInt32(computed) == stored, "CRC of \(type)")
            result.append((type, Data(bytes[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return result
    }

    private static func inflate(_ body: Data, size: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        var length = uLong(size)
        let source = [UInt8](body)
        try #require(uncompress(&out, &length, source, uLong(source.count)) == Z_OK)
        #expect(Int(length) == size)
        return out
    }
}
