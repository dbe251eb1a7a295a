import CFFmpeg
import Foundation
import TesseraComposition

/// JPEG pictures by FFmpeg's `mjpeg` encoder at one size: full-range 4:2:0 (`yuvj420p`), which
/// is what JFIF readers take, at a fixed quantiser (no rate control for still pictures).
///
/// The picture given must already hold JFIF's colours (BT.601, full range): see
/// `JPEGColors.convert`.
final class JPEGEncoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let frame = Frame()
    private let packet = Packet()
    private var nextPTS: Int64 = 0
    let width: Int
    let height: Int
    /// mjpeg's quantiser (2 best … 31 worst); 4 keeps a 320-wide tile a few kilobytes.
    static let quantiser: Int32 = 4
    /// `FF_QP2LAMBDA`, a macro Swift cannot import.
    private static let lambdaPerQP: Int32 = 118

    init(width: Int, height: Int) throws {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else { throw MediaError("this FFmpeg has no mjpeg encoder") }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError("out of memory") }
        self.context = context
        self.width = width
        self.height = height
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.flags |= AV_CODEC_FLAG_QSCALE
        context.pointee.global_quality = Self.quantiser * Self.lambdaPerQP
        context.pointee.thread_count = 1
        try FFmpeg.check(avcodec_open2(context, codec, nil), "cannot open the mjpeg encoder")
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&toFree)
    }

    /// The JPEG file of `picture` (this encoder's size).
    func encode(_ picture: YUVImage) throws -> Data {
        guard picture.width == width, picture.height == height else {
            throw MediaError("a \(picture.width)x\(picture.height) picture for a \(width)x\(height) JPEG encoder")
        }
        let target = frame.pointer
        av_frame_unref(target)
        target.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        target.pointee.width = Int32(width)
        target.pointee.height = Int32(height)
        target.pointee.color_range = AVCOL_RANGE_JPEG
        target.pointee.quality = Self.quantiser * Self.lambdaPerQP
        // Encoders refuse a timestamp that does not move on, even for stills.
        target.pointee.pts = nextPTS
        nextPTS += 1
        // Not reference-counted: the encoder copies the planes it is given before this returns.
        tessera_frame_set_plane(target, 0, picture.y, Int32(picture.lumaStride))
        tessera_frame_set_plane(target, 1, picture.u, Int32(picture.chromaStride))
        tessera_frame_set_plane(target, 2, picture.v, Int32(picture.chromaStride))
        defer { av_frame_unref(target) }
        try FFmpeg.check(avcodec_send_frame(context, target), "JPEG encode failed")
        packet.unref()
        defer { packet.unref() }
        try FFmpeg.check(avcodec_receive_packet(context, packet.pointer), "JPEG encode failed")
        guard let bytes = packet.pointer.pointee.data else { throw MediaError("the mjpeg encoder gave an empty packet") }
        return Data(bytes: bytes, count: Int(packet.pointer.pointee.size))
    }
}

/// The composite's colours (BT.709, limited range) as JFIF readers take a JPEG's (BT.601, full
/// range), in place on a small picture: swscale changes the range but not the matrix between two
/// Y'CbCr formats, and a saturated red read with the wrong matrix comes out visibly orange.
///
/// The maths as in `ColorConversion`: normalised y, pb, pr from the BT.709 code values; R' and B'
/// from them, G' from the luma equation; then BT.601's y, pb, pr, which is linear, so the luma of
/// each pixel takes its 2×2 block's chroma.
enum JPEGColors {
    private static let coefficients: (yFromPb: Double, yFromPr: Double, pbFromPb: Double, pbFromPr: Double,
                                      prFromPb: Double, prFromPr: Double) = {
        let (kr7, kb7) = (0.2126, 0.0722), (kr6, kb6) = (0.299, 0.114)
        // R' = y + 2(1−Kr)pr, B' = y + 2(1−Kb)pb, G' = (y − Kr R' − Kb B') / Kg, as functions of (pb, pr).
        let rPr = 2 * (1 - kr7), bPb = 2 * (1 - kb7)
        let gPb = -kb7 * bPb / (1 - kr7 - kb7), gPr = -kr7 * rPr / (1 - kr7 - kb7)
        let kg6 = 1 - kr6 - kb6
        let yPb = kg6 * gPb + kb6 * bPb, yPr = kr6 * rPr + kg6 * gPr
        let pbScale = 1 / (2 * (1 - kb6)), prScale = 1 / (2 * (1 - kr6))
        return (yPb, yPr, (bPb - yPb) * pbScale, -yPr * pbScale, -yPb * prScale, (rPr - yPr) * prScale)
    }()

    static func convert(_ image: YUVImage) {
        let c = coefficients
        for row in 0..<image.chromaHeight {
            let u = image.u + row * image.chromaStride, v = image.v + row * image.chromaStride
            for column in 0..<image.chromaWidth {
                let pb = (Double(u[column]) - 128) / 224, pr = (Double(v[column]) - 128) / 224
                let lumaShift = 255 * (c.yFromPb * pb + c.yFromPr * pr)
                for dy in 0..<2 where row * 2 + dy < image.height {
                    let luma = image.y + (row * 2 + dy) * image.lumaStride
                    for dx in 0..<2 where column * 2 + dx < image.width {
                        let y = (Double(luma[column * 2 + dx]) - 16) / 219
                        luma[column * 2 + dx] = clamp(255 * y + lumaShift)
                    }
                }
                u[column] = clamp(128 + 255 * (c.pbFromPb * pb + c.pbFromPr * pr))
                v[column] = clamp(128 + 255 * (c.prFromPb * pb + c.prFromPr * pr))
            }
        }
    }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
}
