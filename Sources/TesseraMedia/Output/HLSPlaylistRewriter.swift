import CFFmpeg
import Foundation
import TesseraRTP
import TesseraTask

/// Something a `Muxer` installs on its FFmpeg context before writing the header, and keeps alive
/// for as long as the context lives; it may also touch each packet before it is written.
protocol MuxerAttachment: AnyObject {
    func attach(to context: UnsafeMutablePointer<AVFormatContext>)
    /// `packet`: the muxer's own copy, already rescaled to stream `streamIndex`'s time base.
    func prepare(_ packet: UnsafeMutablePointer<AVPacket>, streamIndex: Int)
}

/// One run of an HLS output's media playlist (`HLSRunPlaylist`): the earlier playlist read before
/// FFmpeg opens (a file, or a `GET` from the origin), and every playlist FFmpeg's muxer then writes
/// caught on its way out and rewritten — each run's segments under their own `#EXT-X-MAP`, a
/// discontinuity between runs and none before the first segment.
///
/// The playlist is caught through the context's `io_open` / `io_close2`: FFmpeg prints it into
/// an in-memory buffer, and on close the rewritten text goes to the destination FFmpeg asked for
/// (`room.m3u8.tmp`, which FFmpeg then renames over `room.m3u8`; or the origin's `PUT`), so a
/// player never reads FFmpeg's own version. Every other file (segments, init segment, deletes)
/// passes straight through.
///
/// fMP4 segments also carry H.264's parameter sets in front of each keyframe: FFmpeg's and
/// GStreamer's HLS demuxers feed a run's new init segment to the MP4 demuxer that read the earlier
/// run's (which keeps the first `moov`), so without them the second run's pictures were decoded
/// with the first run's picture size ("error while decoding MB").
///
/// Threads: FFmpeg calls back on the thread writing the muxer (the publisher's), the only one
/// that touches this object after `attach`.
final class HLSPlaylistRewriter: MuxerAttachment {
    /// Per stream: H.264 SPS and PPS (Annex B, from the encoder's extradata) to put in front of
    /// keyframes that lack them; nil for other streams and for MPEG-TS segments (whose muxer
    /// repeats them itself).
    private var parameterSets: [[UInt8]?] = []
    let settings: HLSSettings
    private(set) var run: HLSRunPlaylist
    /// The media playlist's URL as FFmpeg opens it (its `.tmp` too).
    private let playlist: String
    /// A local `live` playlist's folder: earlier runs' init segments that left the window are
    /// deleted from it, as FFmpeg deletes their segments. Nil otherwise.
    private let releaseFolder: String?
    private var openNext: (@convention(c) (UnsafeMutablePointer<AVFormatContext>?,
                                           UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                           UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32)?
    private var closeNext: (@convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVIOContext>?) -> Int32)?
    /// Playlists being printed into memory: where each goes once closed.
    private var pending: [UnsafeMutableRawPointer: (url: String, flags: Int32, options: OpaquePointer?)] = [:]

    /// Reads what an earlier run left at `settings.playlist` (a missing or unreadable playlist is
    /// none: this run starts it) and picks this run's init segment name.
    init(_ settings: HLSSettings, interrupt: InterruptFlag) {
        self.settings = settings
        playlist = settings.playlist
        let fileName = (settings.stem as NSString).lastPathComponent
        let earlier: String?
        let exists: (String) -> Bool
        if settings.overHTTP {
            earlier = Self.fetch(settings.playlist, interrupt: interrupt)
            exists = { _ in false }
            releaseFolder = nil
        } else {
            let folder = (settings.playlist as NSString).deletingLastPathComponent
            earlier = FileManager.default.contents(atPath: settings.playlist).map { String(decoding: $0, as: UTF8.self) }
            exists = { FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent($0)) }
            releaseFolder = settings.playlistType == .live ? folder : nil
        }
        run = HLSRunPlaylist(earlier: earlier, fileName: fileName, fmp4: settings.segmentFormat == .fmp4, exists: exists)
    }

    deinit {
        // A muxer freed mid-write (cancelled) may leave a buffer open.
        for (_, entry) in pending {
            var options = entry.options
            av_dict_free(&options)
        }
    }

    func attach(to context: UnsafeMutablePointer<AVFormatContext>) {
        parameterSets = (0..<Int(context.pointee.nb_streams)).map { index in
            guard settings.segmentFormat == .fmp4, let parameters = context.pointee.streams[index]?.pointee.codecpar,
                  parameters.pointee.codec_id == AV_CODEC_ID_H264, let extradata = parameters.pointee.extradata,
                  parameters.pointee.extradata_size > 4 else { return nil }
            let bytes = UnsafeRawBufferPointer(start: extradata, count: Int(parameters.pointee.extradata_size))
            // Annex B (x264's global header); an `avcC` record would need converting, and x264 writes none.
            guard bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || (bytes[2] == 0 && bytes[3] == 1) else { return nil }
            let sets = H264Packetizer.parameterSets(annexB: bytes)
            return sets.isEmpty ? nil : sets.flatMap { [0, 0, 0, 1] + $0 }
        }
        openNext = context.pointee.io_open
        closeNext = context.pointee.io_close2
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.io_open = { context, pb, url, flags, options in
            guard let opaque = context?.pointee.opaque else { return -EINVAL }
            return Unmanaged<HLSPlaylistRewriter>.fromOpaque(opaque).takeUnretainedValue()
                .open(context, pb, url, flags, options)
        }
        context.pointee.io_close2 = { context, pb in
            guard let opaque = context?.pointee.opaque else { return -EINVAL }
            return Unmanaged<HLSPlaylistRewriter>.fromOpaque(opaque).takeUnretainedValue().close(context, pb)
        }
    }

    func prepare(_ packet: UnsafeMutablePointer<AVPacket>, streamIndex: Int) {
        guard parameterSets.indices.contains(streamIndex), let sets = parameterSets[streamIndex],
              packet.pointee.flags & AV_PKT_FLAG_KEY != 0, let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        let body = UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))
        guard H264Packetizer.parameterSets(annexB: body).isEmpty else { return }
        let count = sets.count + body.count
        guard let buffer = av_buffer_alloc(count + Int(AV_INPUT_BUFFER_PADDING_SIZE)), let target = buffer.pointee.data else { return }
        sets.withUnsafeBytes { UnsafeMutableRawPointer(target).copyMemory(from: $0.baseAddress!, byteCount: sets.count) }
        UnsafeMutableRawPointer(target + sets.count).copyMemory(from: data, byteCount: body.count)
        (target + count).initialize(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
        av_buffer_unref(&packet.pointee.buf)
        packet.pointee.buf = buffer
        packet.pointee.data = target
        packet.pointee.size = Int32(count)
    }

    private func open(_ context: UnsafeMutablePointer<AVFormatContext>?, _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                      _ url: UnsafePointer<CChar>?, _ flags: Int32, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        guard let openNext else { return -EINVAL }
        let name = url.map { String(cString: $0) } ?? ""
        // Over HTTP, every PUT asks first (Expect: 100-continue): FFmpeg reads a PUT's answer only
        // then, so an origin's 4xx refuses the open (named in lastError) instead of being ignored.
        if flags & AVIO_FLAG_WRITE != 0, name.hasPrefix("http"), let options { av_dict_set(options, "send_expect_100", "1", 0) }
        guard flags & AVIO_FLAG_WRITE != 0, name == playlist || name == playlist + ".tmp", let pb else {
            return openNext(context, pb, url, flags, options)
        }
        var buffer: UnsafeMutablePointer<AVIOContext>?
        let opened = avio_open_dyn_buf(&buffer)
        guard opened >= 0, let buffer else { return opened < 0 ? opened : -ENOMEM }
        // The real open happens at close: keep its options (method, headers) for then.
        var copied: OpaquePointer?
        if let options { av_dict_copy(&copied, options.pointee, 0) }
        pending[UnsafeMutableRawPointer(buffer)] = (name, flags, copied)
        pb.pointee = buffer
        return 0
    }

    private func close(_ context: UnsafeMutablePointer<AVFormatContext>?, _ pb: UnsafeMutablePointer<AVIOContext>?) -> Int32 {
        guard let closeNext, let openNext else { return -EINVAL }
        guard let pb, let entry = pending.removeValue(forKey: UnsafeMutableRawPointer(pb)) else { return closeNext(context, pb) }
        var options = entry.options
        defer { av_dict_free(&options) }
        var bytes: UnsafeMutablePointer<UInt8>?
        let size = avio_close_dyn_buf(pb, &bytes)
        defer { av_free(bytes) }
        let written = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(max(size, 0))), as: UTF8.self)
        let (text, released) = run.rewrite(written)
        var out: UnsafeMutablePointer<AVIOContext>?
        let opened = entry.url.withCString { openNext(context, &out, $0, entry.flags, &options) }
        guard opened >= 0, let out else { return opened < 0 ? opened : -EIO }
        let data = Array(text.utf8)
        avio_write(out, data, Int32(data.count))
        avio_flush(out)
        let failed = out.pointee.error
        let closed = closeNext(context, out)
        if let releaseFolder {
            for name in released { unlink((releaseFolder as NSString).appendingPathComponent(name)) }
        }
        return failed < 0 ? failed : closed
    }

    /// An origin's playlist (nil when it has none or does not answer within 5 s).
    private static func fetch(_ url: String, interrupt: InterruptFlag) -> String? {
        interrupt.setDeadline(secondsFromNow: 5)
        defer { interrupt.setDeadline(secondsFromNow: nil) }
        var callback = interrupt.callback
        let options = OptionDictionary(["protocol_whitelist": "http,https,tcp,tls"])
        var io: UnsafeMutablePointer<AVIOContext>?
        guard avio_open2(&io, url, AVIO_FLAG_READ, &callback, &options.pointer) >= 0, io != nil else { return nil }
        defer { avio_closep(&io) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while data.count < 16 << 20 {
            let count = chunk.withUnsafeMutableBufferPointer { avio_read(io, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            data += chunk[0..<Int(count)]
        }
        return data.isEmpty ? nil : String(decoding: data, as: UTF8.self)
    }
}
