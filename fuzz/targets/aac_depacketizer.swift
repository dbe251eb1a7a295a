// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// AAC over RTP (RFC 3640 mpeg4-generic: AU-header sections, AU-size / AU-Index bit fields,
/// fragmented AUs reassembled across packets). The first input byte picks the SDP's
/// sizeLength / indexLength / indexDeltaLength (AAC-hbr's 13/3/3, AAC-lbr's 6/2/2, or any of
/// 0–31 each, as a hostile SDP could give); the rest is a packet script
/// (fuzz/support/PacketScript.swift), followed by a clean packet of two AUs in the same lengths.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let lengths: (size: Int, index: Int, delta: Int)
    switch reader.byte() & 0x03 {
    case 0: lengths = (13, 3, 3)
    case 1: lengths = (6, 2, 2)
    default: lengths = (Int(reader.byte() & 0x1F), Int(reader.byte() & 0x1F), Int(reader.byte() & 0x1F))
    }
    var depacketizer = AACDepacketizer(sizeLength: lengths.size, indexLength: lengths.index, indexDeltaLength: lengths.delta)
    // The depacketizer holds at most 24 bits of each length; a clean AU needs a size it can say.
    let size = min(lengths.size, 24), index = min(lengths.index, 24), delta = min(lengths.delta, 24)
    let unitBytes = min(20, depacketizer.maxFrameBytes)
    var clean: (payloads: [[UInt8]], frames: [[UInt8]]) = ([], [])
    if unitBytes > 0 {
        let units = [[UInt8](repeating: 0xA1, count: unitBytes), [UInt8](repeating: 0xB2, count: unitBytes)]
        clean = ([auHeaders(units.map(\.count), size: size, index: index, delta: delta) + units.joined()], units)
    }
    PacketScript.run(reader.rest(), through: &depacketizer, maxFrameBytes: depacketizer.maxFrameBytes, isVideo: false,
                     clean: clean)
    return 0
}

/// AU-headers-length (16 bits), then per AU its size and a zero index (delta), padded to bytes.
private func auHeaders(_ sizes: [Int], size: Int, index: Int, delta: Int) -> [UInt8] {
    var bits: [Bool] = []
    for (number, unit) in sizes.enumerated() {
        bits += (0..<size).reversed().map { unit >> $0 & 1 == 1 }
        bits += [Bool](repeating: false, count: number == 0 ? index : delta)
    }
    var bytes: [UInt8] = [UInt8(bits.count >> 8), UInt8(bits.count & 0xFF)]
    for start in stride(from: 0, to: bits.count, by: 8) {
        var byte: UInt8 = 0
        for offset in 0..<8 where start + offset < bits.count && bits[start + offset] { byte |= 0x80 >> UInt8(offset) }
        bytes.append(byte)
    }
    return bytes
}
