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
    static func elements(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)") {
            let after = rest[open.upperBound...]
            // `<Part>` must not match `<PartNumber>`.
            guard let next = after.first, next == ">" || next == " " || next == "/" else { rest = after; continue }
            guard let close = after.firstIndex(of: ">") else { break }
            if close > after.startIndex, after[after.index(before: close)] == "/" { found.append(""); rest = after[close...]; continue }
            let inner = after[after.index(after: close)...]
            guard let end = inner.range(of: "</\(name)>") else { break }
            found.append(String(inner[..<end.lowerBound]))
            rest = inner[end.upperBound...]
        }
        return found
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
