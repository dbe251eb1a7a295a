import CFFmpeg
import TesseraComposition

/// Scales decoded pictures into `YUVImage`s of a requested size, converting their colours to the
/// output's: BT.709 matrix, limited range. Keeps one swscale context per (source, destination)
/// shape, so a steady stream pays for set-up once. A 4:2:0 picture drawn at exactly half its size
/// (a 2x2 grid's tile) skips swscale: `AreaDownscale` averages its 2 x 2 blocks.
final class VideoScaler {
    private struct Shape: Hashable {
        var sourceWidth: Int32, sourceHeight: Int32, sourceFormat: Int32
        var sourceMatrix: Int32, sourceFullRange: Bool
        var width: Int, height: Int, withAlpha: Bool
        /// Y'CbCr sources keep their matrix and range through swscale (its matrix-changing path
        /// is slow); `ColorConversion` then converts the smaller, scaled picture.
        var convertsAfter: Bool
    }

    private var contexts: [Shape: OpaquePointer] = [:]
    private let flags: Int32
    /// Where the pictures it makes take their memory from (and give it back to), if anywhere.
    private let pool: YUVImagePool?

    init(flags: Int32 = SWS_BILINEAR, pool: YUVImagePool? = nil) {
        self.flags = flags
        self.pool = pool
    }

    deinit { for context in contexts.values { sws_freeContext(context) } }

    /// Converts `frame` to a new image of `size`. `withAlpha` keeps the source's alpha channel
    /// (images); video is always opaque.
    func scale(_ frame: UnsafePointer<AVFrame>, to size: PixelSize, withAlpha: Bool = false) throws -> YUVImage {
        let sourceFormat = Self.canonicalFormat(frame.pointee.format)
        let hasAlpha = withAlpha && Self.formatHasAlpha(sourceFormat.format)
        let fullRange = sourceFormat.fullRange || frame.pointee.color_range == AVCOL_RANGE_JPEG
        let shape = Shape(sourceWidth: frame.pointee.width, sourceHeight: frame.pointee.height,
                          sourceFormat: sourceFormat.format.rawValue,
                          sourceMatrix: Self.swsMatrix(frame.pointee.colorspace),
                          sourceFullRange: fullRange,
                          width: size.width, height: size.height, withAlpha: hasAlpha,
                          convertsAfter: !hasAlpha && Self.isYUV(sourceFormat.format))
        let image = YUVImage(width: size.width, height: size.height, hasAlpha: hasAlpha, pool: pool)
        if shape.convertsAfter, sourceFormat.format == AV_PIX_FMT_YUV420P,
           AreaDownscale.halves(PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height)), to: size) {
            Self.halve(frame, into: image)
        } else {
            try swscale(frame, shape: shape, into: image)
        }
        if shape.convertsAfter, let conversion = conversion(for: frame.pointee.colorspace, fullRange: fullRange) {
            conversion.apply(to: image)
        }
        return image
    }

    /// A 4:2:0 picture at half its size (the tile of a 2x2 grid): 2 x 2 means, the very samples
    /// swscale's area filter gives, at a fraction of its cost (`AreaDownscale`).
    private static func halve(_ frame: UnsafePointer<AVFrame>, into image: YUVImage) {
        func plane(_ index: Int32, into target: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
            guard let source = tessera_frame_plane(frame, index) else { return }
            AreaDownscale.halve(source, stride: Int(tessera_frame_linesize(frame, index)),
                                into: target, stride: stride, width: width, height: height)
        }
        plane(0, into: image.y, stride: image.lumaStride, width: image.width, height: image.height)
        plane(1, into: image.u, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight)
        plane(2, into: image.v, stride: image.chromaStride, width: image.chromaWidth, height: image.chromaHeight)
    }

    private func swscale(_ frame: UnsafePointer<AVFrame>, shape: Shape, into image: YUVImage) throws {
        let context = try context(for: shape)
        var sourcePlanes: [UnsafePointer<UInt8>?] = (0..<4).map { UnsafePointer(tessera_frame_plane(frame, Int32($0))) }
        var sourceStrides: [Int32] = (0..<4).map { tessera_frame_linesize(frame, Int32($0)) }
        var destinationPlanes: [UnsafeMutablePointer<UInt8>?] = [image.y, image.u, image.v, image.a]
        var destinationStrides: [Int32] = [Int32(image.lumaStride), Int32(image.chromaStride),
                                           Int32(image.chromaStride), Int32(image.lumaStride)]
        let rows = sws_scale(context, &sourcePlanes, &sourceStrides, 0, frame.pointee.height,
                             &destinationPlanes, &destinationStrides)
        if rows <= 0 { throw MediaError("cannot scale \(frame.pointee.width)x\(frame.pointee.height) to \(image.size)") }
    }

    /// `frame` shown upright at `size` (the displayed orientation): scaled in its coded orientation
    /// to the coded size that turns into `size`, then turned. Turning after scaling moves only the
    /// samples of the (usually smaller) drawn picture, and swscale keeps its fast row-wise path.
    func scale(_ frame: UnsafePointer<AVFrame>, toDisplayed size: PixelSize, orientation: PictureOrientation) throws -> YUVImage {
        try scale(frame, to: orientation.codedSize(displayedAs: size)).oriented(orientation)
    }

    private func context(for shape: Shape) throws -> OpaquePointer {
        if let context = contexts[shape] { return context }
        let destinationFormat = shape.withAlpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        guard let context = sws_getContext(shape.sourceWidth, shape.sourceHeight, AVPixelFormat(shape.sourceFormat),
                                           Int32(shape.width), Int32(shape.height), destinationFormat,
                                           flags, nil, nil, nil) else {
            let name = av_get_pix_fmt_name(AVPixelFormat(shape.sourceFormat)).map { String(cString: $0) } ?? "?"
            throw MediaError("cannot convert pixel format \(name) (\(shape.sourceWidth)x\(shape.sourceHeight))")
        }
        // Source matrix and range as tagged (untagged reads as BT.601, as FFmpeg reads it);
        // destination BT.709 limited, the matrix the encoder tags its output with — or, for
        // Y'CbCr sources, unchanged here and converted afterwards by `ColorConversion`.
        let range: Int32 = shape.sourceFullRange ? 1 : 0
        if shape.convertsAfter {
            _ = sws_setColorspaceDetails(context, sws_getCoefficients(shape.sourceMatrix), range,
                                         sws_getCoefficients(shape.sourceMatrix), range, 0, 1 << 16, 1 << 16)
        } else {
            _ = sws_setColorspaceDetails(context, sws_getCoefficients(shape.sourceMatrix), range,
                                         sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16)
        }
        contexts[shape] = context
        return context
    }

    private var conversions: [Int32: ColorConversion?] = [:]

    private func conversion(for space: AVColorSpace, fullRange: Bool) -> ColorConversion? {
        let key = Int32(space.rawValue) * 2 + (fullRange ? 1 : 0)
        if let cached = conversions[key] { return cached }
        let conversion = ColorConversion(from: Self.matrix(space), fullRange: fullRange)
        conversions[key] = conversion
        return conversion
    }

    private static func matrix(_ space: AVColorSpace) -> YUVMatrix {
        switch space {
        case AVCOL_SPC_BT709: return .bt709
        case AVCOL_SPC_FCC: return .fcc
        case AVCOL_SPC_SMPTE240M: return .smpte240m
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return .bt2020
        default: return .bt601
        }
    }

    private static func isYUV(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && descriptor.pointee.nb_components >= 3
    }

    /// swscale's matrix constant for a frame's colour space tag.
    private static func swsMatrix(_ space: AVColorSpace) -> Int32 {
        switch space {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return SWS_CS_ITU601
        }
    }

    /// The deprecated full-range `yuvj*` formats are their plain twins plus a range flag.
    private static func canonicalFormat(_ raw: Int32) -> (format: AVPixelFormat, fullRange: Bool) {
        let format = AVPixelFormat(raw)
        switch format {
        case AV_PIX_FMT_YUVJ420P: return (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: return (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: return (AV_PIX_FMT_YUV444P, true)
        case AV_PIX_FMT_YUVJ440P: return (AV_PIX_FMT_YUV440P, true)
        case AV_PIX_FMT_YUVJ411P: return (AV_PIX_FMT_YUV411P, true)
        default: return (format, false)
        }
    }

    private static func formatHasAlpha(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}
