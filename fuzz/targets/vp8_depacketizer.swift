// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// VP8 over RTP (RFC 7741: the variable-length payload descriptor, S bit and partition index)
/// to frames, with a small frame limit so oversized frames are reached.
/// The input is a packet script (fuzz/support/PacketScript.swift): payloads with marker bits,
/// timestamp steps, announced losses and resets between them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let limit = 16 << 10
    let keyframe: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + (0..<100).map { UInt8($0) }
    var depacketizer = VP8Depacketizer(maxFrameBytes: limit)
    PacketScript.run(fuzzBytes(start, count), through: &depacketizer, maxFrameBytes: limit, isVideo: true,
                     clean: ([[0x90, 0x80, 0x09] + keyframe], [keyframe]))
    return 0
}
