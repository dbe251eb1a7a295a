import Logging
import ServiceLifecycle
import Testing
import TesseraServer

@Suite struct ShutdownTests {
    /// A service that runs until graceful shutdown, recording when it was told.
    actor Order {
        var events: [String] = []
        func add(_ event: String) { events.append(event) }
    }

    /// Stands in for the HTTP application: notes whether the tasks had ended when it was told to stop.
    struct StandIn: Service {
        let order: Order
        let service: FakeTaskService
        func run() async throws {
            try? await gracefulShutdown()
            await order.add(await service.shuttingDown ? "http stopped after tasks" : "http stopped first")
        }
    }

    @Test func gracefulShutdownEndsTasksBeforeTheHTTPServerStops() async throws {
        let service = FakeTaskService()
        let order = Order()
        let shutdown = TaskShutdownService(service: service, deadlineSeconds: 7, logger: TestServer.logger)
        let group = ServiceGroup(services: [StandIn(order: order, service: service), shutdown], logger: TestServer.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(await service.shutdownDeadlines == [7])
        #expect(await service.shuttingDown)
        #expect(await order.events == ["http stopped after tasks"])
        #expect(await service.shutdownsForGood == [false], "resume is the default: the tasks run again with the next server")
    }

    /// `--on-shutdown stop` reaches the service: the tasks end for good.
    @Test(arguments: [(ShutdownAction.resume, false), (.stop, true)])
    func theShutdownActionSaysWhetherTasksEndForGood(action: ShutdownAction, forGood: Bool) async throws {
        let service = FakeTaskService()
        let shutdown = TaskShutdownService(service: service, deadlineSeconds: 5, action: action, logger: TestServer.logger)
        let group = ServiceGroup(services: [shutdown], logger: TestServer.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(await service.shutdownsForGood == [forGood])
    }
}
