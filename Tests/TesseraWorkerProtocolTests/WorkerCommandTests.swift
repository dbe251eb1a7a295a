import Foundation
import Testing
import TesseraComposition
import TesseraTask
import TesseraWorkerProtocol

/// The commands `tessera serve` writes to a worker: each case survives the line it travels as,
/// keeps the wire shape older workers and servers read, and a line missing its case's value is
/// refused rather than read as a command without it.
@Suite struct WorkerCommandTests {
    static let plan: ResolvedTask = {
        let document = """
            {"taskId": "t1", "inputs": [{"id": "a", "url": "rtmp://origin.local/live/a"}],
             "encoder": {"video": {"width": 640, "height": 360}},
             "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 640, "height": 360}]},
             "outputs": [{"url": "rtmp://sink.local/live/mix"}]}
            """
        let options = ValidationOptions(mediaRoot: "/media", outputDirectory: "/out", defaultPace: .realtime, offline: false,
                                        confinePaths: true, fileExists: { _ in false })
        return try! TaskValidator.validate(json: Data(document.utf8), options: options).get()
    }()

    static let injection = SEIInjection(message: .unregistered(uuid: SEIInjection.defaultUUID, data: Array("hi".utf8)),
                                        repeatCount: 3)

    static let commands: [WorkerCommand] = [
        .start(WorkerStart(plan: plan, outputGiveUpSeconds: 60, leaseSeconds: 5, rtpBindAddress: "127.0.0.1")),
        .start(WorkerStart(plan: plan, outputGiveUpSeconds: 12.5, leaseSeconds: nil, rtpBindAddress: nil)),
        .update(plan),
        .stop,
        .snapshot(requestId: 7),
        .lease(seconds: 2.5),
        .sei(injection),
    ]

    private static func line(_ command: WorkerCommand) throws -> [String: Any] {
        let data = try JSONEncoder().encode(command)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(arguments: commands)
    func aCommandReadsBackAsItWasWritten(_ command: WorkerCommand) throws {
        let data = try JSONEncoder().encode(command)
        #expect(try JSONDecoder().decode(WorkerCommand.self, from: data) == command)
    }

    @Test func theTypeNamesTheCaseAndItsValuesSitBesideIt() throws {
        let start = try Self.line(Self.commands[0])
        #expect(start["type"] as? String == "start")
        #expect(start["outputGiveUpSeconds"] as? Double == 60)
        #expect(start["leaseSeconds"] as? Double == 5)
        #expect(start["rtpBindAddress"] as? String == "127.0.0.1")
        #expect((start["plan"] as? [String: Any])?["taskId"] as? String == "t1")
        #expect(try Self.line(.stop).keys.sorted() == ["type"])
        #expect(try Self.line(.snapshot(requestId: 7))["requestId"] as? Int == 7)
        #expect(try Self.line(.lease(seconds: 2.5))["leaseSeconds"] as? Double == 2.5)
        #expect(try Self.line(.sei(Self.injection))["sei"] != nil)
        #expect(try Self.line(.update(Self.plan))["plan"] != nil)
    }

    @Test(arguments: [
        #"{"type": "snapshot"}"#,
        #"{"type": "lease"}"#,
        #"{"type": "update"}"#,
        #"{"type": "sei"}"#,
        #"{"type": "start", "outputGiveUpSeconds": 60}"#,
        #"{"type": "restart"}"#,
        #"{"plan": null}"#,
    ])
    func aLineWithoutItsCasesValueIsNoCommand(_ line: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(WorkerCommand.self, from: Data(line.utf8)) }
    }
}
