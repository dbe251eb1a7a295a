import Foundation
import Hummingbird
import TesseraEngine

/// Reads a request body up to a limit. A declared `Content-Length` over the limit is refused before
/// a byte is read; a chunked body is refused as soon as it passes the limit, so at most `limit`
/// bytes are ever held. The rest of a refused body is read and dropped by the connection's
/// `LingeringCloseHandler`, so that a client still sending it reads the 413.
enum RequestBodyReader {
    static func read(_ request: Request, limit: Int) async throws -> Data {
        if let declared = request.headers[.contentLength], let length = Int(declared), length > limit {
            throw ServiceError.payloadTooLarge(limit: limit)
        }
        var body = Data()
        for try await chunk in request.body {
            guard body.count + chunk.readableBytes <= limit else { throw ServiceError.payloadTooLarge(limit: limit) }
            body.append(contentsOf: chunk.readableBytesView)
        }
        return body
    }
}
