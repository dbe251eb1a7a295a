import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TesseraServer
import UnixSignals

@Suite struct ServerLifecycleTests {
    actor Port {
        var value: Int?
        func set(_ port: Int) { value = port }
    }

    /// The real server on a free port: it answers over TCP, and its shutdown signal ends the tasks
    /// and returns normally (the process would exit 0).
    ///
    /// The signal goes to this whole test process, so it is SIGUSR2 here, not SIGTERM: every
    /// Hummingbird live test server running beside this test shuts down on SIGTERM too (checked:
    /// one then refuses connections), and a connection another test had just opened was reset
    /// before its server read the request — `BodyLimitTests` failed so, at the very moment this
    /// test sent SIGTERM. That the real `tessera serve` stops on SIGTERM and exits 0 is checked by
    /// every live end-to-end test (`tests/live/conftest.py`).
    @Test func servesAndShutsDownOnItsSignal() async throws {
        let service = FakeTaskService()
        let port = Port()
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, shutdownSeconds: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await runTesseraServer(service: service, configuration: configuration, logger: TestServer.logger,
                                           metrics: TesseraMetrics(), gracefulShutdownSignals: [.sigusr2], onListening: { await port.set($0) })
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

            kill(getpid(), SIGUSR2)
            try await group.waitForAll()
        }
        #expect(await service.shutdownDeadlines == [3])
    }
}
