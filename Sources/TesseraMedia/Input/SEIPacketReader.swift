import CFFmpeg
import TesseraComposition

/// Takes the SEI user data out of an input's H.264 packets before they are decoded, keyed by
/// each packet's pts, and hands it back with the decoded picture of the same pts — so the
/// messages travel with the picture they belong to, through the decoder's reordering.
///
/// Threads: the reader's thread only.
final class SEIPacketReader {
    /// Pictures' worth of messages kept for frames the decoder has not returned yet (a decoder
    /// that drops a broken picture never returns it: the oldest go).
    private static let capacity = 64
    private var pending: [(pts: Int64, messages: [SEIMessage])] = []

    /// Notes the passed-through messages of `packet` (Annex B or AVCC).
    func note(_ packet: Packet) {
        let pointer = packet.pointer.pointee
        guard let data = pointer.data, pointer.size > 0 else { return }
        note(UnsafeRawBufferPointer(start: data, count: Int(pointer.size)), pts: pointer.pts)
    }

    func note(_ bytes: UnsafeRawBufferPointer, pts: Int64) {
        let messages = SEICodec.messages(inAccessUnit: bytes).filter(\.isPassedThrough)
        guard !messages.isEmpty else { return }
        pending.append((pts, messages))
        if pending.count > Self.capacity { pending.removeFirst(pending.count - Self.capacity) }
    }

    /// The messages of the picture with this pts (the frame's `pts`, else its best-effort one);
    /// a picture without a pts takes the oldest waiting messages.
    func take(for frame: UnsafeMutablePointer<AVFrame>) -> [SEIMessage] {
        guard !pending.isEmpty else { return [] }
        var pts = frame.pointee.pts
        if pts == FFmpeg.noPTS { pts = frame.pointee.best_effort_timestamp }
        let index: Int? = pts == FFmpeg.noPTS ? pending.startIndex : pending.firstIndex(where: { $0.pts == pts })
        guard let index else { return [] }
        return pending.remove(at: index).messages
    }

    func reset() { pending.removeAll() }
}

extension Decoder {
    /// Only H.264 carries the SEI this reads (VP8 / VP9 have none; HEVC's differ).
    var carriesH264SEI: Bool { context.pointee.codec_id == AV_CODEC_ID_H264 }
}

extension MediaSink {
    /// By default a sink takes no SEI (and the reader does not look for any).
    public var wantsSEI: Bool { false }
    public func sei(_ messages: [SEIMessage]) {}
}
