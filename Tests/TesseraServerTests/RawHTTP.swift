import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One request written byte for byte over a plain TCP socket, for what an HTTP client library
/// will not do (send a head and no body).
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `request` to 127.0.0.1:`port` and returns the server's answer: its head and as much
    /// body as its Content-Length says (or all until it closes, or `timeoutSeconds` pass without
    /// a byte). The blocking socket calls run on a thread of their own: on the cooperative pool
    /// (two threads on two cores) they could starve the very server handler they wait for.
    static func exchange(port: Int, _ request: String, timeoutSeconds: Int = 5) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, request, timeoutSeconds: timeoutSeconds) })
            }.start()
        }
    }

    /// A TCP socket connected to 127.0.0.1:`port`, with send (and receive) timeouts; the caller closes it.
    static func connectedSocket(port: Int, sendTimeoutSeconds: Int, receiveTimeoutSeconds: Int? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "cannot create a socket") }
        var timeout = timeval(tv_sec: sendTimeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let receiveTimeoutSeconds {
            var receive = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &receive, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "cannot connect to port \(port)")
        }
        return socket
    }

    private static func blockingExchange(port: Int, _ request: String, timeoutSeconds: Int) throws -> String {
        let socket = try connectedSocket(port: port, sendTimeoutSeconds: timeoutSeconds, receiveTimeoutSeconds: timeoutSeconds)
        defer { close(socket) }
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw Failure(description: "cannot send the request")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isComplete(answer) {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received < 0 && errno == EINTR { continue }
            if received < 0 {
                throw Failure(description: "receive failed after \(answer.count) bytes: \(String(cString: strerror(errno)))")
            }
            if received == 0 { break }
            answer += buffer[..<received]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    private static func isComplete(_ answer: [UInt8]) -> Bool {
        let text = String(decoding: answer, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let length = text[..<headEnd.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        return text[headEnd.upperBound...].utf8.count >= length
    }
}
