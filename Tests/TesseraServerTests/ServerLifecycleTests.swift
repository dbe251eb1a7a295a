import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TesseraServer

@Suite struct ServerLifecycleTests {
    actor Port {
        var value: Int?
        func set(_ port: Int) { value = port }
    }

    /// The real server on a free port: it answers over TCP, and SIGTERM ends the tasks and returns
    /// normally (the process would exit 0).
    @Test func servesAndShutsDownOnSIGTERM() async throws {
        let service = FakeTaskService()
        let port = Port()
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, shutdownSeconds: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await runTesseraServer(service: service, configuration: configuration, logger: TestServer.logger,
                                           metrics: TesseraMetrics(), onListening: { await port.set($0) })
            }
            var bound: Int?
            for _ in 0..<500 where bound == nil {
                try await Task.sleep(for: .milliseconds(10))
                bound = await port.value
            }
            let listening = try #require(bound)
            let url = try #require(URL(string: "http://127.0.0.1:\(listening)/healthz"))
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == #"{"status":"ok"}"#)

            kill(getpid(), SIGTERM)
            try await group.waitForAll()
        }
        #expect(await service.shutdownDeadlines == [3])
    }
}
