import CFFmpeg
import TesseraComposition

/// Puts SEI messages into one encode's video: the messages meant for its frame N (`SEISchedule`)
/// go, as one SEI NAL unit, before the first slice of the packet whose pts is N (the encoder's
/// time base is 1/fps).
///
/// Threads: the output thread only.
final class SEIPacketWriter {
    private var schedule = SEISchedule()

    /// Messages for the picture sent to the encoder with pts `frameIndex`.
    func schedule(_ messages: [SEIMessage], frameIndex: Int64) {
        schedule.schedule(messages, frame: frameIndex)
    }

    /// `packet`, or a copy of it with its frame's SEI in front of its first slice.
    func apply(to packet: Packet) throws -> Packet {
        guard !schedule.isEmpty, let messages = schedule.take(frame: packet.pointer.pointee.pts),
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
