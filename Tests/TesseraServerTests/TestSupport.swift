import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import TesseraServer
import TesseraService
import TesseraWorkerProtocol

/// An application over a fresh fake registry, with a private metrics registry.
struct TestServer {
    let service = FakeTaskService()
    let metrics = TesseraMetrics()
    var configuration = ServerConfiguration()
    var support = APISupport()

    init(apiToken: String? = nil, maxBodyBytes: Int = ServeSettings.Defaults.maxBodyBytes) {
        configuration = ServerConfiguration(host: "127.0.0.1", port: 0, apiToken: apiToken, maxBodyBytes: maxBodyBytes)
    }

    static var logger: Logger {
        var logger = Logger(label: "tessera-test")
        logger.logLevel = .critical
        return logger
    }

    func app() -> some ApplicationProtocol {
        makeTesseraApplication(service: service, configuration: configuration, logger: Self.logger, metrics: metrics,
                               support: support)
    }

    /// Runs `body` against the router in-process.
    func test(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await app().test(.router, body)
    }
}

let taskBody = #"{"taskId": "room-1", "inputs": [{"id": "a", "url": "a.mp4"}], "outputs": [{"url": "out.mp4"}]}"#

func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

func jsonHeaders(_ extra: HTTPFields = [:]) -> HTTPFields {
    var headers = extra
    headers[.contentType] = "application/json"
    return headers
}

func bearer(_ token: String) -> HTTPFields {
    var headers = HTTPFields()
    headers[.authorization] = "Bearer \(token)"
    return headers
}

/// The decoded `{"error": {...}}` body.
struct ErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
        var path: String?
        var issues: [ServiceError.Issue]?
    }
    var error: Detail
}

extension TestResponse {
    var errorBody: ErrorBody.Detail? {
        try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)).error
    }

    var taskStatus: TaskStatus? {
        try? JSONDecoder().decode(TaskStatus.self, from: Data(body.readableBytesView))
    }

    var text: String { String(buffer: body) }
}

extension UDPPortChecker {
    /// Every port free and every address this host's: settings and route tests bind no RTP port.
    static let unchecked = UDPPortChecker(firstBusy: { _, _ in nil }, isLocalAddress: { _ in true })
}
