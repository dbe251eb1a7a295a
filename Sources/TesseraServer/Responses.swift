import Foundation
import Hummingbird

/// Every response body this API writes, JSON (success or error), PNG or text, is made here.
enum Responses {
    static let jsonContentType = "application/json; charset=utf-8"

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok,
                     headers: HTTPFields = [:]) throws -> Response {
        let encoder = JSONEncoder()
        // Sorted keys: the same document always reads the same (Foundation on Linux keeps no
        // declaration order). Output URLs are part of status documents: keep their slashes readable.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return bytes(data, status: status, contentType: jsonContentType, headers: headers)
    }

    static func bytes(_ bytes: some Collection<UInt8>, status: HTTPResponse.Status = .ok, contentType: String,
                     headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        fields[.contentLength] = String(bytes.count)
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: buffer))
    }
}
