import Foundation
import TesseraService
import TesseraStore
import TesseraWorkerProtocol

/// An in-memory registry for driving the HTTP layer: it keeps task statuses and answers the
/// registry's errors, with no media behind it. Malformed bodies are refused as the real registry
/// refuses them (400 InvalidTask with a path).
actor FakeTaskService: TaskService {
    struct Unexpected: Error {}

    var tasks: [String: TaskStatus] = [:]
    var order: [String] = []
    var maxTasks = 16
    var shuttingDown = false
    var shutdownDeadlines: [Double] = []
    /// Per shutdown, whether the tasks were to end for good (`--on-shutdown stop`).
    var shutdownsForGood: [Bool] = []
    var createCalls = 0
    /// Every call throws a non-`ServiceError`, to see the generic 500.
    var failUnexpectedly = false
    /// When set, `list()` answers this instead (metrics tests).
    var listed: [TaskStatus]?
    /// What `nodes()` answers (`GET /v1/nodes`).
    var knownNodes: [NodeInfo] = []
    /// What `document(_:)` answers, by task (`GET /v1/tasks/{taskId}/document`).
    var documents: [String: AcceptedDocument] = [:]

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]

    func create(_ body: Data) async throws -> TaskStatus {
        createCalls += 1
        if failUnexpectedly { throw Unexpected() }
        if shuttingDown { throw ServiceError.shuttingDown }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw ServiceError(.invalidTask, message: "not a JSON object", path: "")
        }
        var issues: [ServiceError.Issue] = []
        if object["inputs"] == nil { issues.append(.init(path: "inputs", message: "required")) }
        if object["outputs"] == nil { issues.append(.init(path: "outputs", message: "required")) }
        if let first = issues.first {
            throw ServiceError(.invalidTask, message: first.message, path: first.path,
                               issues: issues.count > 1 ? issues : [])
        }
        let id = object["taskId"] as? String ?? "task-\(order.count + 1)"
        if tasks[id] != nil { throw ServiceError.taskExists(id) }
        if tasks.values.count(where: { !$0.state.isFinal }) >= maxTasks { throw ServiceError.tooManyTasks(limit: maxTasks) }
        let status = TaskStatus(taskId: id, state: .running, startedAt: "2026-01-01T00:00:00Z",
                                inputs: [InputStatus(id: "a", state: .live)],
                                outputs: [OutputStatus(url: "rtmp://cdn.example/live/***", state: .live)])
        tasks[id] = status
        order.append(id)
        return status
    }

    func list() async -> [TaskStatus] {
        listed ?? order.compactMap { tasks[$0] }
    }

    func status(_ taskId: String) async throws -> TaskStatus {
        if failUnexpectedly { throw Unexpected() }
        guard let status = tasks[taskId] else { throw ServiceError.taskNotFound(taskId) }
        return status
    }

    func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        guard var status = tasks[taskId] else { throw ServiceError.taskNotFound(taskId) }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw ServiceError(.invalidUpdate, message: "not a JSON object", path: "")
        }
        if object["encoder"] != nil {
            throw ServiceError(.invalidUpdate, message: "encoder cannot change", path: "encoder")
        }
        if let sequence = (object["sequence"] as? NSNumber)?.int64Value {
            if let last = status.sequence, sequence <= last { throw ServiceError.staleSequence(got: sequence, last: last) }
            status.sequence = sequence
        }
        tasks[taskId] = status
        return status
    }

    func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        guard tasks[taskId] != nil else { throw ServiceError.taskNotFound(taskId) }
        return SEIAccepted(taskId: taskId, uuid: "b7c3e1d25a4f4e6b9c8d7a1f2e3d4c5b", bytes: body.count, repeat: 1)
    }

    func stop(_ taskId: String) async throws -> TaskStatus {
        guard var status = tasks[taskId] else { throw ServiceError.taskNotFound(taskId) }
        status.state = .stopped
        tasks[taskId] = status
        return status
    }

    func snapshot(_ taskId: String) async throws -> Data {
        guard let status = tasks[taskId] else { throw ServiceError.taskNotFound(taskId) }
        if status.state.isFinal { throw ServiceError.invalidState("task \"\(taskId)\" has ended") }
        return Data(Self.png)
    }

    func shutdown(deadlineSeconds seconds: Double) async {
        await shutdown(deadlineSeconds: seconds, forGood: false)
    }

    func shutdown(deadlineSeconds seconds: Double, forGood: Bool) async {
        shuttingDown = true
        shutdownDeadlines.append(seconds)
        shutdownsForGood.append(forGood)
    }

    // MARK: test setup

    func set(maxTasks: Int) { self.maxTasks = maxTasks }
    func set(shuttingDown: Bool) { self.shuttingDown = shuttingDown }
    func set(failUnexpectedly: Bool) { self.failUnexpectedly = failUnexpectedly }
    func set(listed: [TaskStatus]?) { self.listed = listed }
    func set(nodes: [NodeInfo]) { self.knownNodes = nodes }
    func nodes() -> [NodeInfo] { knownNodes }
    func set(document: AcceptedDocument) { documents[document.taskId] = document }
    func document(_ taskId: String) throws -> AcceptedDocument {
        guard let document = documents[taskId] else { throw ServiceError.taskNotFound(taskId) }
        return document
    }
}
