import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One `GET /healthz` over a plain TCP socket, for `tessera healthcheck`: a container health
/// check then needs no curl in the image, and no HTTP client library in the binary.
enum HealthProbe {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Succeeds when the server at `host`:`port` answers `/healthz` with status 200 within
    /// `timeoutSeconds` (each of connect, send and receive).
    static func check(host: String, port: Int, timeoutSeconds: Int) throws(Failure) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(first) }
        let socket = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socket >= 0 else { throw Failure(description: "cannot create a socket") }
        defer { close(socket) }
        // On Linux SO_SNDTIMEO also bounds connect(2).
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw Failure(description: "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            throw Failure(description: "cannot send the request")
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        let received = recv(socket, &buffer, buffer.count, 0)
        guard received > 0 else { throw Failure(description: "no answer from \(host):\(port)") }
        let statusLine = String(decoding: buffer[..<received], as: UTF8.self).prefix { $0 != "\r" && $0 != "\n" }
        guard statusLine.hasPrefix("HTTP/1.1 200") || statusLine.hasPrefix("HTTP/1.0 200") else {
            throw Failure(description: "answered \"\(statusLine)\"")
        }
    }
}
