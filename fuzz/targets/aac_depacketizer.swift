// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// AAC over RTP (RFC 3640 mpeg4-generic: AU-header sections, AU-size / AU-Index bit fields,
/// fragmented AUs reassembled across packets). The first input byte picks the SDP's
/// sizeLength / indexLength / indexDeltaLength (AAC-hbr's 13/3/3, AAC-lbr's 6/2/2, or any of
/// 0–31 each, as a hostile SDP could give); the rest is a packet script
/// (fuzz/support/PacketScript.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let mode = reader.byte()
    var depacketizer: AACDepacketizer
    switch mode & 0x03 {
    case 0: depacketizer = AACDepacketizer()
    case 1: depacketizer = AACDepacketizer(sizeLength: 6, indexLength: 2, indexDeltaLength: 2)
    default: depacketizer = AACDepacketizer(sizeLength: Int(reader.byte() & 0x1F), indexLength: Int(reader.byte() & 0x1F),
                                            indexDeltaLength: Int(reader.byte() & 0x1F), samplesPerFrame: 1024)
    }
    PacketScript.run(reader.rest(), through: &depacketizer, maxFrameBytes: depacketizer.maxFrameBytes, isVideo: false)
    return 0
}
