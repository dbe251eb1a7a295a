import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraTask
import TesseraServer
import TesseraService
import TesseraStore

/// `GET /v1/nodes` (the nodes a real SQLite task store lists, as the service passes them on) and
/// `GET /v1/tasks/{taskId}/document`, read from that store.
@Suite struct ClusterRoutesTests {
    static func store() async throws -> SQLiteTaskStore {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID().uuidString)/tasks.sqlite").path
        let store = try SQLiteTaskStore(path: path)
        try await store.prepare()
        return store
    }

    static func server(_ store: any TaskStore) -> TestServer {
        var server = TestServer()
        server.support = APISupport(validationOptions: ValidationOptions(
            mediaRoot: "/media", fileExists: { _ in true }, inspectFile: { _ in nil }), store: store, nodeId: "a")
        return server
    }

    struct Nodes: Decodable {
        struct Node: Decodable { var nodeId: String; var state: String; var maxTasks: Int; var running: Int; var this: Bool }
        var nodes: [Node]
    }

    @Test func nodesListsEachNodeWithItsStateAndLoad() async throws {
        let store = try await Self.store()
        try await store.heartbeat(NodeHeartbeat(nodeId: "b", advertiseURL: "http://b:8080", capacity: 4, running: 1,
                                                draining: true, leaseSeconds: 30))
        try await store.heartbeat(NodeHeartbeat(nodeId: "a", advertiseURL: "http://a:8080", capacity: 8, running: 2,
                                                draining: false, leaseSeconds: 30))
        let server = Self.server(store)
        await server.service.set(nodes: try await store.nodes())
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/nodes", method: .get)
            #expect(response.status == .ok)
            let nodes = try JSONDecoder().decode(Nodes.self, from: Data(response.body.readableBytesView)).nodes
            #expect(nodes.map(\.nodeId) == ["a", "b"])
            #expect(nodes.map(\.state) == ["ready", "draining"])
            #expect(nodes[0].maxTasks == 8 && nodes[0].running == 2 && nodes[0].this && !nodes[1].this)
        }
        await store.close()
    }

    struct Answer: Decodable {
        struct Layout: Decodable { var canvasWidth: Int; var regions: [DocumentCheckRoutesTests.Summary.Layout.Region] }
        var taskId: String
        var sequence: Int64?
        var document: JSONValue
        var layout: Layout?
    }

    @Test func aTaskDocumentComesWithItsSequenceAndItsLayoutAsDrawn() async throws {
        let store = try await Self.store()
        _ = try await store.createTask(NewTask(taskId: "pk", document: DocumentCheckRoutesTests.twoInputs, node: "a"))
        _ = try await store.updateDocument(taskId: "pk", document: DocumentCheckRoutesTests.twoInputs, sequence: 7,
                                           node: "a", generation: 1)
        // The route asks the service, which reads the store (`ClusterService.document`).
        let record = try #require(try await store.task("pk"))
        let server = Self.server(store)
        await server.service.set(document: AcceptedDocument(taskId: "pk", document: record.document, sequence: record.sequence))
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/tasks/pk/document", method: .get)
            #expect(response.status == .ok)
            let answer = try JSONDecoder().decode(Answer.self, from: Data(response.body.readableBytesView))
            #expect(answer.taskId == "pk" && answer.sequence == 7)
            #expect(answer.layout?.canvasWidth == 640 && answer.layout?.regions.count == 2)
            guard case .object(let fields) = answer.document else { Issue.record("not an object"); return }
            #expect(fields["outputs"] == .array([.object(["url": .string("out.mp4")])]))

            let missing = try await client.execute(uri: "/v1/tasks/nope/document", method: .get)
            #expect(missing.status == .notFound && missing.errorBody?.code == "TaskNotFound")
        }
        await store.close()
    }
}
