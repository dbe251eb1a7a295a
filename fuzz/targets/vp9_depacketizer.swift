// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// VP9 over RTP (RFC 9628: picture id, layer indices, flexible-mode reference diffs, the
/// scalability structure) to frames, with a small frame limit so oversized frames are reached.
/// The input is a packet script (fuzz/support/PacketScript.swift): payloads with marker bits,
/// timestamp steps, announced losses and resets between them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let limit = 16 << 10
    let keyframe: [UInt8] = (0..<100).map { UInt8($0) }
    var depacketizer = VP9Depacketizer(maxFrameBytes: limit)
    PacketScript.run(fuzzBytes(start, count), through: &depacketizer, maxFrameBytes: limit, isVideo: true,
                     clean: ([[0x0C] + keyframe], [keyframe]))
    return 0
}
