import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraServer
#if canImport(Glibc)
import Glibc
#endif

/// Oversized bodies sent the way most HTTP clients send them: the whole body, with no
/// `Expect: 100-continue`, before reading anything. Over a real socket, since the point is what
/// the server does with the bytes it has not read. The server runs without SIGTERM handling
/// (`SignalFreeServer`): another suite sends the test process SIGTERM, and HummingbirdTesting's
/// `.live` servers shut down on it, resetting whatever connection they hold.
@Suite struct LingeringCloseSocketTests {
    @Test func aClientThatSendsTheWholeBodyReads413AndTheConnectionCloses() async throws {
        let server = TestServer(maxBodyBytes: 1024)
        try await SignalFreeServer.run(server) { port in
            let body = [UInt8](repeating: UInt8(ascii: " "), count: 8 << 20)
            let answer = try await BodySender.send(port: port, head: "POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                   + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n",
                                                   body: body)
            #expect(answer.sentAll, "the server stopped reading after \(answer.sent) of \(body.count) bytes")
            #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("PayloadTooLarge"))
            #expect(answer.text.lowercased().contains("connection: close"))
            #expect(answer.closed, "the server keeps the connection open after a refused body")
            let health = try await RawHTTP.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(200))")
        }
        #expect(await server.service.createCalls == 0)
    }

    @Test func aChunkedBodyPastTheLimitIsAnsweredToo() async throws {
        let server = TestServer(maxBodyBytes: 1024)
        try await SignalFreeServer.run(server) { port in
            let chunk = String(repeating: " ", count: 65536)
            var body = ""
            for _ in 0..<64 { body += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
            body += "0\r\n\r\n"
            let answer = try await BodySender.send(port: port, head: "POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                   + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                                                   body: Array(body.utf8))
            #expect(answer.sentAll, "the server stopped reading after \(answer.sent) bytes")
            #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text.prefix(200))")
            #expect(answer.closed)
        }
    }

    @Test func aRequestReadInFullKeepsItsConnection() async throws {
        let server = TestServer()
        try await SignalFreeServer.run(server) { port in
            let body = Array(taskBody.utf8)
            // A second request on the same connection is served: the first was not refused.
            let answer = try await BodySender.send(port: port, head: "POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                   + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n",
                                                   body: body + Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            let first = answer.text.components(separatedBy: "\r\n\r\n")[0]
            #expect(first.hasPrefix("HTTP/1.1 201"), "\(answer.text.prefix(200))")
            #expect(!first.lowercased().contains("connection: close"))
            #expect(answer.text.contains("HTTP/1.1 200"), "the second request was not served: \(answer.text.suffix(300))")
        }
    }
}

/// The application on a free port, run with no graceful-shutdown signals, ended by cancellation.
enum SignalFreeServer {
    private actor Port {
        var value: Int?
        func set(_ port: Int) { value = port }
    }

    static func run(_ server: TestServer, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let port = Port()
        let app = makeTesseraApplication(service: server.service, configuration: server.configuration,
                                         logger: TestServer.logger, metrics: server.metrics,
                                         onListening: { await port.set($0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var bound: Int?
            for _ in 0..<500 where bound == nil {
                try await Task.sleep(for: .milliseconds(10))
                bound = await port.value
            }
            defer { group.cancelAll() }
            try await body(try #require(bound))
        }
    }
}

/// Sends a head and a body over a plain blocking socket, all of it before reading (as `urllib`
/// does), then reads the answer and whether the server closes afterwards. On a thread of its own:
/// the blocking calls must not starve the server on the cooperative pool.
enum BodySender {
    struct Answer {
        var sent: Int
        var sentAll: Bool
        var text: String
        var closed: Bool
    }

    static func send(port: Int, head: String, body: [UInt8], waitForCloseSeconds: Int = 5) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try blockingSend(port: port, request: Array(head.utf8) + body, waitForCloseSeconds: waitForCloseSeconds)
                })
            }.start()
        }
    }

    private static func blockingSend(port: Int, request: [UInt8], waitForCloseSeconds: Int) throws -> Answer {
        let socket = try RawHTTP.connectedSocket(port: port, sendTimeoutSeconds: 5)
        defer { close(socket) }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }  // a send timeout: the server stopped reading
            sent += n
        }
        var wait = timeval(tv_sec: waitForCloseSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var closed = false
        while true {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received < 0 && errno == EINTR { continue }
            if received == 0 { closed = true; break }
            if received < 0 { closed = errno == ECONNRESET; break }
            answer += buffer[..<received]
        }
        return Answer(sent: sent, sentAll: sent == request.count, text: String(decoding: answer, as: UTF8.self), closed: closed)
    }
}
