import Foundation
import TesseraComposition

/// Writes the composite pictures uncompressed as YUV4MPEG2: exact pixels before encoding, for
/// inspection and for piping into other tools.
final class Y4MWriter {
    private let handle: FileHandle

    init(path: String, width: Int, height: Int, fps: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw MediaError("cannot create \(path)")
        }
        self.handle = handle
        let header = "YUV4MPEG2 W\(width) H\(height) F\(fps):1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n"
        try handle.write(contentsOf: Data(header.utf8))
    }

    func write(_ picture: YUVImage) throws {
        var frame = Data("FRAME\n".utf8)
        frame.reserveCapacity(6 + picture.width * picture.height * 3 / 2)
        func append(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
            for line in 0..<height { frame.append(plane + line * stride, count: width) }
        }
        append(picture.y, stride: picture.lumaStride, width: picture.width, height: picture.height)
        append(picture.u, stride: picture.chromaStride, width: picture.chromaWidth, height: picture.chromaHeight)
        append(picture.v, stride: picture.chromaStride, width: picture.chromaWidth, height: picture.chromaHeight)
        try handle.write(contentsOf: frame)
    }

    func finish() throws { try handle.close() }
}
