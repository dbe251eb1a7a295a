import CFFmpeg
import TesseraComposition

/// Scales the composite (BT.709 limited 4:2:0, drawn once per frame) down to one rendition's
/// size: one swscale context, set up once, and one pass per rendition per frame. The matrix and
/// range stay as they are, so swscale only filters (its fast path); bilinear, which for a
/// downscale widens its taps by the ratio, as FFmpeg's `scale=…:flags=bilinear` does.
///
/// The pictures it returns take their memory from a pool: the encoder may hold one (a reference,
/// no copy) after `scale` returns, and the memory goes back when it lets go.
final class CompositeScaler {
    private let context: OpaquePointer
    let width: Int
    let height: Int
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let pool = YUVImagePool(sparePerSize: 4)

    init(from source: PixelSize, to size: PixelSize) throws {
        guard let context = sws_getContext(Int32(source.width), Int32(source.height), AV_PIX_FMT_YUV420P,
                                           Int32(size.width), Int32(size.height), AV_PIX_FMT_YUV420P,
                                           SWS_BILINEAR, nil, nil, nil) else {
            throw MediaError("cannot scale \(source.width)x\(source.height) to \(size.width)x\(size.height)")
        }
        self.context = context
        (sourceWidth, sourceHeight, width, height) = (source.width, source.height, size.width, size.height)
    }

    deinit { sws_freeContext(context) }

    /// `picture` (the composite) at this rendition's size.
    func scale(_ picture: YUVImage) throws -> YUVImage {
        guard picture.width == sourceWidth, picture.height == sourceHeight else {
            throw MediaError("the composite is \(picture.width)x\(picture.height), expected \(sourceWidth)x\(sourceHeight)")
        }
        let image = YUVImage(width: width, height: height, pool: pool)
        var sourcePlanes: [UnsafePointer<UInt8>?] = [UnsafePointer(picture.y), UnsafePointer(picture.u), UnsafePointer(picture.v), nil]
        var sourceStrides: [Int32] = [Int32(picture.lumaStride), Int32(picture.chromaStride), Int32(picture.chromaStride), 0]
        var planes: [UnsafeMutablePointer<UInt8>?] = [image.y, image.u, image.v, nil]
        var strides: [Int32] = [Int32(image.lumaStride), Int32(image.chromaStride), Int32(image.chromaStride), 0]
        let rows = sws_scale(context, &sourcePlanes, &sourceStrides, 0, Int32(sourceHeight), &planes, &strides)
        if rows <= 0 { throw MediaError("cannot scale the composite to \(width)x\(height)") }
        return image
    }
}
