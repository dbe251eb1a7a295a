import Foundation
import Testing
import TesseraComposition
import TesseraTask

/// `inputs[].seiPassthrough`, the `sei` section and `POST /v1/tasks/{id}/sei` bodies: defaults that
/// keep old documents meaning what they meant, and every fault named by its path.
@Suite struct SEIValidationTests {
    static func document(_ extra: String, video: Bool = true, input: String = "") -> String {
        """
        {"inputs": [{"id": "anchor", "url": "anchor.mp4"\(input)}],
         "encoder": {\(video ? #""video": {"width": 1280, "height": 720}"# : #""audio": {}"#)},
         "outputs": [{"url": "out.mp4"}]\(extra)}
        """
    }

    static func validate(_ text: String) -> Result<ResolvedTask, ValidationFailure> {
        TaskFixtures.validate(text, options: TaskFixtures.options(files: TaskFixtures.files))
    }

    static func paths(_ text: String) -> [String] {
        guard case .failure(let failure) = validate(text) else { return [] }
        return failure.issues.map(\.path)
    }

    @Test func oldDocumentsPassThroughAndHaveNoVolumeSEI() throws {
        let task = try Self.validate(Self.document("")).get()
        #expect(task.inputs[0].seiPassthrough)
        #expect(task.sei == nil)
        let off = try Self.validate(Self.document("", input: #", "seiPassthrough": false"#)).get()
        #expect(!off.inputs[0].seiPassthrough)
    }

    @Test func volumeDefaultsToOneSecondAndTesserasUUID() throws {
        let task = try Self.validate(Self.document(#", "sei": {"volume": {}, "appData": "room 7"}"#)).get()
        #expect(task.sei == SEISettings(volumeIntervalMilliseconds: 1000, appData: "room 7"))
        let custom = try Self.validate(Self.document(#", "sei": {"volume": {"intervalMs": 300, "uuid": "00112233-4455-6677-8899-AABBCCDDEEFF"}}"#)).get()
        #expect(custom.sei?.volumeIntervalMilliseconds == 300)
        #expect(custom.sei?.volumeUUID == Array(UInt8(0)...UInt8(255)).filter { $0 % 0x11 == 0 })
    }

    @Test(arguments: [
        (#", "sei": {"volume": {"intervalMs": 299}}"#, "sei.volume.intervalMs"),
        (#", "sei": {"volume": {"intervalMs": 5001}}"#, "sei.volume.intervalMs"),
        (#", "sei": {"volume": {"uuid": "0011"}}"#, "sei.volume.uuid"),
        (#", "sei": {"volume": {"interval": 500}}"#, "sei.volume.interval"),
        (#", "sei": {"appData": 7}"#, "sei.appData"),
        (#", "sei": {"pictures": true}"#, "sei.pictures"),
    ])
    func faultsAreNamed(extra: String, path: String) {
        #expect(Self.paths(Self.document(extra)) == [path])
    }

    @Test func appDataHasAtMost4096Characters() {
        let ok = String(repeating: "界", count: 4096), long = String(repeating: "a", count: 4097)
        #expect(Self.paths(Self.document(#", "sei": {"appData": "\#(ok)"}"#)).isEmpty)
        #expect(Self.paths(Self.document(#", "sei": {"appData": "\#(long)"}"#)) == ["sei.appData"])
    }

    @Test func audioOnlyTasksCarryNoSEI() {
        #expect(Self.paths(Self.document(#", "sei": {"volume": {}}"#, video: false)) == ["sei"])
        #expect(Self.paths(Self.document("", input: #", "seiPassthrough": "yes""#)) == ["inputs[0].seiPassthrough"])
    }

    // MARK: Injection bodies

    static func injection(_ json: String) -> Result<SEIInjection, ValidationFailure> { SEIInjection.read(Data(json.utf8)) }

    @Test func injectionDefaultsToUTF8OnceWithTesserasUUID() throws {
        let read = try Self.injection(#"{"payload": "héllo"}"#).get()
        #expect(read == SEIInjection(message: .unregistered(uuid: SEIInjection.defaultUUID, data: Array("héllo".utf8)), repeatCount: 1))
        let binary = try Self.injection(#"{"payload": "AAEC", "encoding": "base64", "repeat": 30, "uuid": "ffeeddccbbaa99887766554433221100"}"#).get()
        #expect(binary.message.payload.suffix(3) == [0, 1, 2] && binary.repeatCount == 30)
        #expect(binary.message.uuid?.first == 0xFF)
    }

    @Test(arguments: [
        (#"{"repeat": 1}"#, "payload"),
        (#"{"payload": ""}"#, "payload"),
        (#"{"payload": "%%%", "encoding": "base64"}"#, "payload"),
        (#"{"payload": "a", "encoding": "latin1"}"#, "encoding"),
        (#"{"payload": "a", "uuid": "not-hex-not-hex-not-hex-not-hex!"}"#, "uuid"),
        (#"{"payload": "a", "repeat": 0}"#, "repeat"),
        (#"{"payload": "a", "repeat": 31}"#, "repeat"),
        (#"{"payload": "a", "extra": 1}"#, "extra"),
    ])
    func injectionFaultsAreNamed(json: String, path: String) {
        guard case .failure(let failure) = Self.injection(json) else { Issue.record("accepted \(json)"); return }
        #expect(failure.issues.map(\.path) == [path])
    }

    @Test func injectionPayloadIsAtMost4KiB() {
        let ok = String(repeating: "a", count: 4096)
        #expect((try? Self.injection(#"{"payload": "\#(ok)"}"#).get()) != nil)
        guard case .failure(let failure) = Self.injection(#"{"payload": "\#(ok)b"}"#) else { Issue.record("accepted 4097 bytes"); return }
        #expect(failure.issues.map(\.path) == ["payload"])
    }
}
