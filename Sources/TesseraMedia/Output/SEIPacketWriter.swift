import CFFmpeg
import TesseraComposition

/// Puts SEI messages into the encoded video: the messages meant for output frame N go, as one SEI
/// NAL unit, before the first slice of the packet whose pts is N (the encoder's time base is
/// 1/fps). Keyed by pts because the encoder hands packets back frames later (lookahead).
///
/// Threads: the output thread only.
final class SEIPacketWriter {
    private var scheduled: [Int64: [SEIMessage]] = [:]

    /// Messages for the picture sent to the encoder with pts `frameIndex`.
    func schedule(_ messages: [SEIMessage], frameIndex: Int64) {
        guard !messages.isEmpty else { return }
        // A rendition at a lower rate gets the messages of the frames it skips on its next one:
        // a message repeated on those frames (an injection's `repeat`) goes in once.
        let already = scheduled[frameIndex] ?? []
        scheduled[frameIndex] = already + messages.filter { !already.contains($0) }
        // Packets come back in order: anything far behind belongs to a frame the encoder dropped.
        if scheduled.count > 512 { scheduled = scheduled.filter { $0.key > frameIndex - 256 } }
    }

    /// `packet`, or a copy of it with its frame's SEI in front of its first slice.
    func apply(to packet: Packet) throws -> Packet {
        guard !scheduled.isEmpty, let messages = scheduled.removeValue(forKey: packet.pointer.pointee.pts),
              let data = packet.pointer.pointee.data, packet.pointer.pointee.size > 0 else { return packet }
        let bytes = H264NALUnits.inserting(SEICodec.nal(messages),
                                           into: UnsafeRawBufferPointer(start: data, count: Int(packet.pointer.pointee.size)))
        let copy = Packet()
        try FFmpeg.check(av_new_packet(copy.pointer, Int32(bytes.count)), "cannot allocate a packet")
        bytes.withUnsafeBytes { copy.pointer.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
        try FFmpeg.check(av_packet_copy_props(copy.pointer, packet.pointer), "cannot copy packet properties")
        return copy
    }
}
