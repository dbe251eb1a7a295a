import Foundation
import Hummingbird
import NIOCore
import TesseraService

extension Request {
    /// The body, refused with 413 naming `limit` past that many bytes: Hummingbird's
    /// `collectBody(upTo:)` stops a longer body as it arrives, so at most `limit` bytes are held. A
    /// declared `Content-Length` over the limit is refused before a byte is read, for a client that
    /// waits for the answer before it sends the body. The rest of a refused body is read and dropped
    /// by the connection's `LingeringCloseHandler`, so that a client still sending it reads the 413.
    mutating func collectBody(limit: Int) async throws -> Data {
        if let declared = headers[.contentLength], let length = Int(declared), length > limit {
            throw APIError.payloadTooLarge(limit: limit)
        }
        do {
            return Data(try await collectBody(upTo: limit).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit: limit)
        }
    }
}
