// fuzz-sources: Sources/TesseraObjectStorage/S3XML.swift

/// What an S3-compatible store answers, as `S3XML` reads it: an upload id, the pages of
/// `ListMultipartUploads` and `ListParts`, an `Error` document; and the tag scanner under them.
/// Compiled with S3XML.swift alone (it needs nothing but Foundation), so the target does not
/// build the HTTP client.
///
/// Properties: the elements found are no longer than the answer (none read twice); the `CompleteMultipartUpload` body
/// written for parts (ETags taken from the input) reads back as those parts, and escaping reads
/// back as the text escaped.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let xml = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    _ = S3XML.uploadId(xml)
    _ = S3XML.uploads(xml)
    _ = S3XML.parts(xml)
    _ = S3XML.error(xml)
    for name in ["Part", "Upload", "Error", "Key"] {
        let elements = S3XML.elements(name, in: xml)
        require(elements.reduce(0) { $0 + $1.utf8.count } <= xml.utf8.count, "<\(name)> elements longer than the answer")
    }
    require(S3XML.unescape(S3XML.escape(xml)) == xml, "escaped text reads back differently")
    let etags = xml.split(separator: "\n", omittingEmptySubsequences: false).prefix(4).map(String.init)
    let parts = etags.enumerated().map { S3XML.Part(number: $0.offset + 1, etag: $0.element, size: 0) }
    require(S3XML.parts(S3XML.completion(parts)).items == parts, "a CompleteMultipartUpload body reads back differently")
    return 0
}
