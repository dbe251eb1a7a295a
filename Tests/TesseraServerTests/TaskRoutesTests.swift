import Foundation
import Hummingbird
import HummingbirdTesting
import TesseraServer
import TesseraService
import Testing

@Suite struct TaskRoutesTests {
    @Test func createAnswers201WithStatusAndLocation() async throws {
        try await TestServer().test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .post, headers: jsonHeaders(), body: buffer(taskBody))
            #expect(response.status == .created)
            #expect(response.headers[.location] == "/v1/tasks/room-1")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(response.taskStatus?.taskId == "room-1")
            #expect(response.taskStatus?.state == .running)
        }
    }

    @Test func duplicateTaskIdIs409EvenWithAnIdenticalBody() async throws {
        let server = TestServer()
        try await server.test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let again = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            #expect(again.status == .conflict)
            #expect(again.errorBody?.code == "TaskExists")
        }
        #expect(await server.service.order == ["room-1"])
    }

    @Test func invalidDocumentIs400WithPathAndIssues() async throws {
        try await TestServer().test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(#"{"taskId": "x"}"#))
            #expect(response.status == .badRequest)
            let error = try #require(response.errorBody)
            #expect(error.code == "InvalidTask")
            #expect(error.path == "inputs")
            #expect(error.issues?.map(\.path) == ["inputs", "outputs"])
        }
    }

    @Test func malformedJSONGoesToTheRegistry() async throws {
        try await TestServer().test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer("{not json"))
            #expect(response.status == .badRequest)
            #expect(response.errorBody?.code == "InvalidTask")
            // A single problem: no "issues" array in the body.
            #expect(!response.text.contains("issues"))
        }
    }

    @Test func listAnswersTasksArray() async throws {
        try await TestServer().test { client in
            let empty = try await client.execute(uri: "/v1/tasks", method: .get)
            #expect(empty.status == .ok)
            #expect(empty.text == #"{"tasks":[]}"#)
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let listed = try await client.execute(uri: "/v1/tasks", method: .get)
            let object = try JSONSerialization.jsonObject(with: Data(listed.body.readableBytesView)) as? [String: Any]
            let tasks = try #require(object?["tasks"] as? [[String: Any]])
            #expect(tasks.map { $0["taskId"] as? String } == ["room-1"])
            // Redacted output URLs keep their slashes readable.
            #expect(listed.text.contains("rtmp://cdn.example/live/***"))
        }
    }

    @Test func statusOfKnownAndUnknownTask() async throws {
        try await TestServer().test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let known = try await client.execute(uri: "/v1/tasks/room-1", method: .get)
            #expect(known.status == .ok)
            #expect(known.taskStatus?.taskId == "room-1")
            let unknown = try await client.execute(uri: "/v1/tasks/nope", method: .get)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorBody?.code == "TaskNotFound")
        }
    }

    @Test func updateAppliesAndRefusesStaleSequence() async throws {
        try await TestServer().test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let first = try await client.execute(uri: "/v1/tasks/room-1", method: .patch, body: buffer(#"{"sequence": 5}"#))
            #expect(first.status == .ok)
            #expect(first.taskStatus?.sequence == 5)
            let stale = try await client.execute(uri: "/v1/tasks/room-1", method: .patch, body: buffer(#"{"sequence": 5}"#))
            #expect(stale.status == .conflict)
            #expect(stale.errorBody?.code == "StaleSequence")
            #expect(stale.errorBody?.path == "sequence")
            let encoder = try await client.execute(uri: "/v1/tasks/room-1", method: .patch, body: buffer(#"{"encoder": {}}"#))
            #expect(encoder.status == .badRequest)
            #expect(encoder.errorBody?.code == "InvalidUpdate")
            #expect(encoder.errorBody?.path == "encoder")
            let missing = try await client.execute(uri: "/v1/tasks/nope", method: .patch, body: buffer("{}"))
            #expect(missing.status == .notFound)
        }
    }

    @Test func deleteReturnsFinalStatus() async throws {
        try await TestServer().test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let stopped = try await client.execute(uri: "/v1/tasks/room-1", method: .delete)
            #expect(stopped.status == .ok)
            #expect(stopped.taskStatus?.state == .stopped)
            let again = try await client.execute(uri: "/v1/tasks/nope", method: .delete)
            #expect(again.status == .notFound)
        }
    }

    @Test func snapshotIsPNG() async throws {
        try await TestServer().test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let snapshot = try await client.execute(uri: "/v1/tasks/room-1/snapshot.png", method: .get)
            #expect(snapshot.status == .ok)
            #expect(snapshot.headers[.contentType] == "image/png")
            #expect(Array(snapshot.body.readableBytesView) == FakeTaskService.png)
            _ = try await client.execute(uri: "/v1/tasks/room-1", method: .delete)
            let ended = try await client.execute(uri: "/v1/tasks/room-1/snapshot.png", method: .get)
            #expect(ended.status == .conflict)
            #expect(ended.errorBody?.code == "InvalidState")
            let unknown = try await client.execute(uri: "/v1/tasks/nope/snapshot.png", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    @Test func seiIsAccepted202() async throws {
        try await TestServer().test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            let accepted = try await client.execute(uri: "/v1/tasks/room-1/sei", method: .post, body: buffer(#"{"payload": "hi"}"#))
            #expect(accepted.status == .accepted)
            let body = try JSONDecoder().decode(SEIAccepted.self, from: Data(accepted.body.readableBytesView))
            #expect(body.taskId == "room-1" && body.repeat == 1)
            let unknown = try await client.execute(uri: "/v1/tasks/nope/sei", method: .post, body: buffer(#"{"payload": "hi"}"#))
            #expect(unknown.status == .notFound)
            let wrongMethod = try await client.execute(uri: "/v1/tasks/room-1/sei", method: .get)
            #expect(wrongMethod.status == .methodNotAllowed)
        }
    }

    @Test func tooManyTasksIs429WithRetryAfter() async throws {
        let server = TestServer()
        await server.service.set(maxTasks: 0)
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            #expect(response.status == .tooManyRequests)
            #expect(response.errorBody?.code == "TooManyTasks")
            #expect(response.headers[.retryAfter] == "10")
        }
    }

    @Test func shuttingDownIs503() async throws {
        let server = TestServer()
        await server.service.set(shuttingDown: true)
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorBody?.code == "ShuttingDown")
        }
    }

    @Test func unexpectedErrorIsGeneric500() async throws {
        let server = TestServer()
        await server.service.set(failUnexpectedly: true)
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/tasks/room-1", method: .get)
            #expect(response.status == .internalServerError)
            #expect(response.errorBody?.code == "InternalError")
            #expect(response.errorBody?.message.contains("Unexpected") == false)
        }
    }
}
