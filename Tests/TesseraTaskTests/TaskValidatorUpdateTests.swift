import Foundation
import Synchronization
import Testing
import TesseraComposition
import TesseraTask

/// The rules of a `PATCH` (`TaskValidator.validateUpdate`), the SEI route's, and the host look-ups
/// of one validation: pure, with the fixtures' injected files and DNS.
@Suite struct TaskValidatorUpdateTests {
    static func running(_ json: String = TaskFixtures.base, options: ValidationOptions = TaskFixtures.options()) throws
        -> TaskValidator.RunningTask {
        guard case .object(let fields) = TaskFixtures.value(json) else { throw Refused() }
        let plan = try #require(TaskFixtures.task(TaskFixtures.validate(json, options: options)))
        return TaskValidator.RunningTask(document: fields, storedDocument: fields, plan: plan)
    }

    struct Refused: Error {}

    static func update(_ body: String, to current: TaskValidator.RunningTask,
                       options: ValidationOptions = TaskFixtures.options()) -> Result<TaskValidator.ValidatedUpdate, TaskValidator.UpdateRefusal> {
        TaskValidator.validateUpdate(current: current, changes: Data(body.utf8), options: options)
    }

    static func rule(_ result: Result<TaskValidator.ValidatedUpdate, TaskValidator.UpdateRefusal>) -> ValidationIssue? {
        if case .failure(.rule(let issue)) = result { return issue }
        return nil
    }

    @Test(arguments: [
        (#"{"encoder": {"video": {"width": 640, "height": 360}}}"#, "encoder", "encoder cannot be changed while a task runs"),
        (#"{"taskId": "other"}"#, "taskId", "taskId cannot be changed"),
        (#"{"mode": "relay"}"#, "mode", "mode cannot be changed while a task runs"),
        (#"{"pace": "asap"}"#, "pace", "pace is not a field an update may change (layout, audio, inputs, outputs, sei, sequence)"),
        // The first by name, whatever the order the body gives them in.
        (#"{"taskId": "x", "callbackUrl": "http://h/", "layout": null}"#, "callbackUrl", "callbackUrl cannot be changed while a task runs"),
    ])
    func aFieldFixedForTheTasksLifeIsRefusedByName(body: String, path: String, message: String) throws {
        let issue = Self.rule(Self.update(body, to: try Self.running()))
        #expect(issue == ValidationIssue(path: path, message: message))
    }

    @Test(arguments: [#"{"sequence": 2.5}"#, #"{"sequence": "3"}"#, #"{"sequence": 1e16}"#, #"{"sequence": null}"#])
    func aSequenceThatIsNoIntegerIsRefused(body: String) throws {
        #expect(Self.rule(Self.update(body, to: try Self.running())) == ValidationIssue(path: "sequence", message: "sequence must be an integer"))
    }

    @Test func aBodyThatIsNoJSONObjectIsRefusedAtTheRoot() throws {
        let current = try Self.running()
        #expect(Self.rule(Self.update("[1]", to: current)) == ValidationIssue(path: "", message: "the update must be a JSON object"))
        #expect(Self.rule(Self.update("{", to: current))?.path == "")
    }

    @Test func changesAreMergedIntoBothDocumentsAndNullRemovesAField() throws {
        var current = try Self.running(#"{"taskId": "t1", "inputs": [{"id": "a", "url": "anchor.mp4"}], "outputs": [{"url": "out.mp4"}], "encoder": {"video": {"width": 640, "height": 360}}, "sei": {"appData": "x"}}"#)
        current.storedDocument["note"] = .string("as stored")
        let result = Self.update(#"{"sequence": 7, "outputs": [{"url": "two.mp4"}], "sei": null}"#, to: current)
        let update = try result.get()
        #expect(update.sequence == 7)
        let document = update.document, stored = update.storedDocument
        #expect(document["outputs"] == TaskFixtures.value(#"[{"url": "two.mp4"}]"#) && stored["outputs"] == document["outputs"])
        #expect(document["sei"] == nil && stored["sei"] == nil && update.plan.sei == nil)
        #expect(document["sequence"] == nil, "the sequence is the update's, not the document's")
        #expect(stored["note"] == .string("as stored"))
        #expect(update.plan.outputs.count == 1 && update.plan.outputs[0].url.hasSuffix("two.mp4"))
    }

    @Test func anInvalidMergedDocumentIsRefusedWithEveryIssue() throws {
        let result = Self.update(#"{"layout": {"regions": [{"input": "nobody", "x": 0, "y": 0, "width": 64, "height": 64}]}, "outputs": []}"#,
                                 to: try Self.running())
        guard case .failure(.document(let failure)) = result else { Issue.record("\(result)"); return }
        #expect(failure.issues.count >= 2, "\(failure)")
        #expect(Set(failure.issues.map(\.path)).isSuperset(of: ["outputs"]), "\(failure)")
    }

    @Test func anUpdateCannotSwitchBetweenAudioOnlyAndAudioVideo() throws {
        // The plan in force is audio-only; the merged document draws a picture.
        var current = try Self.running()
        current.plan.video = nil
        #expect(Self.rule(Self.update(#"{"sequence": 1}"#, to: current))
                == ValidationIssue(path: "layout", message: "an update cannot switch a task between audio-only and audio-video"))
        // The same plan as it runs is no switch.
        #expect((try? Self.update(#"{"sequence": 1}"#, to: try Self.running()).get()) != nil)
    }

    @Test func eachHostNameIsLookedUpOncePerValidation() throws {
        let asked = Asked()
        var options = TaskFixtures.options()
        options.deniedHosts = try HostDenyList(["10.0.0.0/8"])
        options.resolveHost = { host in asked.note(host); return [[203, 0, 113, 5]] }
        let current = try Self.running(options: options)
        asked.reset()
        // The guest's origin, two outputs and the callback share hosts: each name resolved once.
        let body = #"{"outputs": [{"url": "rtmp://cdn.example/live/a"}, {"url": "rtmp://cdn.example/live/b"}, {"url": "srt://origin.local:9000"}]}"#
        _ = try Self.update(body, to: current, options: options).get()
        #expect(asked.hosts.sorted() == ["cdn.example", "origin.local"])
    }

    @Test func anSEIMessageNeedsAPictureToRideOn() throws {
        let video = try Self.running().plan
        let body = Data(#"{"payload": "hello"}"#.utf8)
        #expect((try? TaskValidator.validateSEIInjection(body, plan: video).get())?.repeatCount == 1)
        var audioOnly = video
        audioOnly.video = nil
        guard case .failure(let failure) = TaskValidator.validateSEIInjection(body, plan: audioOnly) else { Issue.record("accepted"); return }
        #expect(failure.issues == [ValidationIssue(path: "encoder.video",
                                                   message: "the task is audio-only (no encoder.video): it has no video to carry SEI")])
        guard case .failure(let fields) = TaskValidator.validateSEIInjection(Data(#"{"repeat": 99}"#.utf8), plan: video) else {
            Issue.record("accepted"); return
        }
        #expect(Set(fields.issues.map(\.path)) == ["payload", "repeat"])
    }

    @Test func allocatedPortsTurnAnAllocateInputIntoTheSDPWrittenForIt() throws {
        let json = RTPAllocationValidationTests.document(rtp: #"{"allocate": {"audio": "opus"}, "source": "192.0.2.9"}"#)
        let plan = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        guard case .rtpAllocate(_, let filter) = plan.inputs[1].source else { Issue.record("\(plan.inputs[1].source)"); return }
        let allocated = plan.allocating(["sfu": "v=0 (the SDP)", "absent": "ignored"])
        #expect(allocated.inputs[1].source == .rtpSDP(sdp: "v=0 (the SDP)", source: filter))
        #expect(allocated.inputs[0] == plan.inputs[0])
        #expect(plan.allocating([:]) == plan)
    }
}

/// The host names a resolver was asked for (it is called on the validating thread).
final class Asked: Sendable {
    private let names = Mutex<[String]>([])
    func note(_ host: String) { names.withLock { $0.append(host) } }
    func reset() { names.withLock { $0.removeAll() } }
    var hosts: [String] { names.withLock { $0 } }
}
