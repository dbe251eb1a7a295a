import CFFmpeg
import Foundation
import TesseraComposition

/// Turns a composite picture into PNG bytes (previews and snapshots), converting BT.709
/// limited-range Y'CbCr back to R'G'B'.
public enum PNGEncoder {
    public static func encode(_ picture: YUVImage) throws -> Data {
        guard let sws = sws_getContext(Int32(picture.width), Int32(picture.height), AV_PIX_FMT_YUV420P,
                                       Int32(picture.width), Int32(picture.height), AV_PIX_FMT_RGB24,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
            throw MediaError("cannot convert the picture to RGB")
        }
        defer { sws_freeContext(sws) }
        _ = sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_ITU709), 0,
                                     sws_getCoefficients(SWS_CS_ITU709), 1, 0, 1 << 16, 1 << 16)
        let rgb = Frame()
        rgb.pointer.pointee.format = AV_PIX_FMT_RGB24.rawValue
        rgb.pointer.pointee.width = Int32(picture.width)
        rgb.pointer.pointee.height = Int32(picture.height)
        try FFmpeg.check(av_frame_get_buffer(rgb.pointer, 0), "out of memory")
        let sourcePlanes: [UnsafePointer<UInt8>?] = [UnsafePointer(picture.y), UnsafePointer(picture.u), UnsafePointer(picture.v), nil]
        let sourceStrides: [Int32] = [Int32(picture.lumaStride), Int32(picture.chromaStride), Int32(picture.chromaStride), 0]
        var destinationPlanes: [UnsafeMutablePointer<UInt8>?] = [tessera_frame_plane(rgb.pointer, 0), nil, nil, nil]
        var destinationStrides: [Int32] = [tessera_frame_linesize(rgb.pointer, 0), 0, 0, 0]
        _ = sws_scale(sws, sourcePlanes, sourceStrides, 0, Int32(picture.height), &destinationPlanes, &destinationStrides)

        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let context = avcodec_alloc_context3(codec) else {
            throw MediaError("this FFmpeg has no PNG encoder")
        }
        defer { var toFree: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&toFree) }
        context.pointee.width = Int32(picture.width)
        context.pointee.height = Int32(picture.height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 1)
        try FFmpeg.check(avcodec_open2(context, codec, nil), "cannot open the PNG encoder")
        try FFmpeg.check(avcodec_send_frame(context, rgb.pointer), "cannot encode PNG")
        _ = avcodec_send_frame(context, nil)
        let packet = Packet()
        try FFmpeg.check(avcodec_receive_packet(context, packet.pointer), "cannot encode PNG")
        return Data(bytes: packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
    }
}
