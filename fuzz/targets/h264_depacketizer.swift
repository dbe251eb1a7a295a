// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// H.264 over RTP (RFC 6184: single NAL units, STAP-A, FU-A, and the types refused) to
/// access units, with sprop parameter sets to insert before IDR slices and a small frame limit
/// so oversized access units are reached.
/// The input is a packet script (fuzz/support/PacketScript.swift): payloads with marker bits,
/// timestamp steps, announced losses and resets between them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let limit = 16 << 10
    let idr: [UInt8] = [0x65, 0x88] + (0..<100).map { UInt8($0) }
    let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0x8C, 0x8D, 0x40, 0x50, 0x1E, 0xD0]
    let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    var depacketizer = H264Depacketizer(parameterSets: [sps, pps], maxFrameBytes: limit)
    PacketScript.run(fuzzBytes(start, count), through: &depacketizer, maxFrameBytes: limit, isVideo: true,
                     clean: ([[0x78, 0, UInt8(sps.count)] + sps + [0, UInt8(pps.count)] + pps, idr],
                             [[0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps + [0, 0, 0, 1] + idr]), leftover: true)
    return 0
}
