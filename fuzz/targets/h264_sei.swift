// fuzz-sources: Sources/TesseraComposition/SEI/H264NALUnits.swift Sources/TesseraComposition/SEI/SEICodec.swift Sources/TesseraComposition/SEI/SEIMessage.swift

/// An input's H.264 access unit as the SEI pass-through reads it (`SEIPacketReader`: any RTMP,
/// SRT or RTP sender's packets): the framing guessed (Annex B or 4-byte lengths), the NAL units
/// cut, each SEI unit's messages read (emulation prevention removed, ff-coded type and size);
/// and the writer's side on the same bytes, an SEI unit inserted before the first slice.
/// Compiled with those three files alone: TesseraComposition's raster and audio are not needed.
///
/// Properties: NAL units lie inside the data, in order; messages read, written back as an SEI
/// unit, read back the same; an inserted unit is found again with its message
/// (when the bytes keep their framing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = UnsafeRawBufferPointer(start: start, count: count)
    var previousEnd = 0
    for unit in H264NALUnits.units(in: data) {
        require(unit.prefixStart <= unit.start && unit.start < unit.end && unit.end <= data.count,
                "a NAL unit at \(unit.prefixStart)/\(unit.start)..<\(unit.end) in \(data.count) bytes")
        require(unit.prefixStart >= previousEnd, "NAL units overlap")
        previousEnd = unit.end
        guard unit.type == H264NALUnits.seiType else { continue }
        let messages = SEICodec.messages(inNAL: UnsafeRawBufferPointer(rebasing: data[unit.start..<unit.end]))
        guard !messages.isEmpty else { continue }
        let written = SEICodec.nal(messages)
        let again = written.withUnsafeBytes { SEICodec.messages(inNAL: $0) }
        require(again == messages, "\(messages.count) SEI messages written back read as \(again.count)")
    }
    _ = SEICodec.messages(inAccessUnit: data).filter(\.isPassedThrough)
    let message = SEIMessage.unregistered(uuid: [UInt8](repeating: 0x5A, count: 16), data: [0, 0, 1, 0xFF, 3])
    let inserted = H264NALUnits.inserting(SEICodec.nal([message]), into: data)
    // Bytes that are no access unit (no NAL unit at all, say) may read as the other framing once
    // a unit is added; the writer only ever gets an encoder's access units, whose framing holds.
    let framingHeld = inserted.withUnsafeBytes { H264NALUnits.framing(of: $0) } == H264NALUnits.framing(of: data)
    let found = inserted.withUnsafeBytes { SEICodec.messages(inAccessUnit: $0) }
    require(!framingHeld || found.contains(message), "an inserted SEI unit is not found again")
    return 0
}
