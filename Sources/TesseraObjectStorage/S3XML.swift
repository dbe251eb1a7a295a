import Foundation

/// The few S3 XML documents Tessera reads and writes. S3 answers in flat, schema-fixed XML, so
/// a tag scanner is enough (no namespaces or attributes are looked at); pure and tested on the
/// documents as the S3 API reference prints them.
public enum S3XML {
    public struct Upload: Sendable, Equatable {
        public var key: String; public var uploadId: String
        public init(key: String, uploadId: String) { self.key = key; self.uploadId = uploadId }
    }
    public struct Part: Sendable, Equatable {
        public var number: Int; public var etag: String; public var size: Int64
        public init(number: Int, etag: String, size: Int64) { self.number = number; self.etag = etag; self.size = size }
    }
    public struct Page<Item: Sendable & Equatable>: Sendable, Equatable {
        public var items: [Item]
        /// Where the next page starts, when the listing was cut short.
        public var nextMarkers: [String: String]?
    }

    /// `InitiateMultipartUploadResult`'s `UploadId`.
    public static func uploadId(_ xml: String) -> String? { texts("UploadId", in: xml).first }

    /// `ListMultipartUploadsResult`: each `Upload`'s `Key` and `UploadId`.
    public static func uploads(_ xml: String) -> Page<Upload> {
        let items = elements("Upload", in: xml).compactMap { body -> Upload? in
            guard let key = texts("Key", in: body).first, let id = texts("UploadId", in: body).first else { return nil }
            return Upload(key: key, uploadId: id)
        }
        let truncated = texts("IsTruncated", in: xml).last == "true"
        let markers = ["key-marker": texts("NextKeyMarker", in: xml).last, "upload-id-marker": texts("NextUploadIdMarker", in: xml).last]
        return Page(items: items, nextMarkers: truncated ? markers.compactMapValues { $0 } : nil)
    }

    /// `ListPartsResult`: each `Part`'s number, ETag and size.
    public static func parts(_ xml: String) -> Page<Part> {
        let items = elements("Part", in: xml).compactMap { body -> Part? in
            guard let number = texts("PartNumber", in: body).first.flatMap({ Int($0) }),
                  let etag = texts("ETag", in: body).first else { return nil }
            return Part(number: number, etag: etag, size: texts("Size", in: body).first.flatMap { Int64($0) } ?? 0)
        }
        let truncated = texts("IsTruncated", in: xml).last == "true"
        let marker = texts("NextPartNumberMarker", in: xml).last
        return Page(items: items, nextMarkers: truncated ? marker.map { ["part-number-marker": $0] } : nil)
    }

    /// An `Error` document's `Code` and `Message` (S3 may send one with status 200 to a
    /// `CompleteMultipartUpload`).
    public static func error(_ xml: String) -> (code: String, message: String)? {
        guard let body = elements("Error", in: xml).first, let code = texts("Code", in: body).first else { return nil }
        return (code, texts("Message", in: body).first ?? "")
    }

    /// The `CompleteMultipartUpload` request body, parts in order.
    public static func completion(_ parts: [Part]) -> String {
        let body = parts.sorted { $0.number < $1.number }
            .map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(escape($0.etag))</ETag></Part>" }.joined()
        return "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(body)</CompleteMultipartUpload>"
    }

    // MARK: Scanning

    /// The inner text of every `<name>…</name>` (and `<name attr="…">`), entities decoded.
    static func texts(_ name: String, in xml: String) -> [String] { elements(name, in: xml).map(unescape) }

    /// The raw inner XML of every element `name`, in document order (not nested in itself).
    ///
    /// Scanned as UTF-8 bytes, not as Characters: a combining mark right after a tag's `>` (a key
    /// or an ETag that starts with one) would otherwise join the `>` into one grapheme, hide the
    /// tag's end and drop the element (found by the `s3_xml` fuzz target).
    static func elements(_ name: String, in xml: String) -> [String] {
        let bytes = Array(xml.utf8)
        let openTag = Array("<\(name)".utf8), closeTag = Array("</\(name)>".utf8)
        let greater = UInt8(ascii: ">"), slash = UInt8(ascii: "/"), space = UInt8(ascii: " ")
        var found: [String] = []
        var index = 0
        while let open = firstIndex(of: openTag, in: bytes, from: index) {
            let after = open + openTag.count
            guard after < bytes.count else { break }
            // `<Part>` must not match `<PartNumber>`.
            guard [greater, space, slash].contains(bytes[after]) else { index = after; continue }
            guard let close = bytes[after...].firstIndex(of: greater) else { break }
            if close > after, bytes[close - 1] == slash { found.append(""); index = close; continue }
            guard let end = firstIndex(of: closeTag, in: bytes, from: close + 1) else { break }
            found.append(String(decoding: bytes[(close + 1)..<end], as: UTF8.self))
            index = end + closeTag.count
        }
        return found
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        var candidate = start
        while candidate + needle.count <= haystack.count {
            if haystack[candidate] == needle[0], haystack[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            candidate += 1
        }
        return nil
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
