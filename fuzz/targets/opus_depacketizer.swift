// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// Opus (and PCMU / PCMA) over RTP: one frame per payload, empty payloads refused.
/// The input is a packet script (fuzz/support/PacketScript.swift): payloads with marker bits,
/// timestamp steps, announced losses and resets between them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var depacketizer = WholePacketDepacketizer()
    PacketScript.run(fuzzBytes(start, count), through: &depacketizer, maxFrameBytes: 65_535, isVideo: false,
                     clean: ([[0xFC, 1, 2]], [[0xFC, 1, 2]]))
    return 0
}
