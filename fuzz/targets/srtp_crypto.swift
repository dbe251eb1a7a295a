// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// SDES key lines (`a=crypto`, RFC 4568): each input line read alone, then all of them as one
/// media section's list (the first usable one wins).
///
/// Property: an accepted attribute written back (`value`, `line`) reads as the same attribute.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(whereSeparator: \.isNewline).map(String.init)
    for line in lines {
        guard let attribute = try? SRTPCryptoAttribute(parsing: line) else { continue }
        require((try? SRTPCryptoAttribute(parsing: attribute.value)) == attribute, "\(line) written back reads differently")
        require((try? SRTPCryptoAttribute(parsing: attribute.line)) == attribute, "\(line) as an SDP line reads differently")
    }
    _ = try? SRTPCryptoAttribute.firstSupported(lines)
    return 0
}
