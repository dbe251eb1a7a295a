import Foundation
import TesseraTask
import Testing
import TesseraService
import TesseraObjectStorage
import TesseraServer
import TesseraWorkerProtocol

/// `--storage-endpoint`, `--storage-region`, `--storage-spool-bytes` and the AWS credentials;
/// `output.uploaded` from two statuses.
@Suite struct ObjectStorageSettingsTests {
    static let keys = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test func noEndpointAndNoCredentialsIsNoStore() throws {
        let settings = try ServeSettings(flags: .init(), environment: [:], workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.storage == nil)
        #expect(settings.registryConfiguration(workerExecutable: "/t", udpPorts: .unchecked).validationOptions.objectStorage == false)
    }

    @Test func credentialsAloneMeanAWSAndAnEndpointIsPathStyle() throws {
        let aws = try ServeSettings(flags: .init(), environment: Self.keys, workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(aws.storage == StorageSettings(endpoint: nil, accessKeyId: "AKID", secretAccessKey: "secret"))
        #expect(aws.registryConfiguration(workerExecutable: "/t", udpPorts: .unchecked).validationOptions.objectStorage)
        let flags = ServeSettings.Flags([.storageEndpoint: "http://127.0.0.1:9000", .storageRegion: "eu-west-3",
                                         .storageSpoolBytes: "67108864"])
        let minio = try ServeSettings(flags: flags, environment: Self.keys, workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(minio.storage == StorageSettings(endpoint: "http://127.0.0.1:9000", region: "eu-west-3", accessKeyId: "AKID",
                                                 secretAccessKey: "secret", spoolBytes: 64 << 20))
        #expect(!"\(minio.storage!)".contains("secret"))
    }

    @Test func secretsComeFromFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-storage-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "AKFILE\n".write(to: folder.appendingPathComponent("id"), atomically: true, encoding: .utf8)
        try "from-file\n".write(to: folder.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        let environment = ["AWS_ACCESS_KEY_ID_FILE": folder.appendingPathComponent("id").path,
                           "AWS_SECRET_ACCESS_KEY_FILE": folder.appendingPathComponent("secret").path]
        let settings = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.storage?.accessKeyId == "AKFILE" && settings.storage?.secretAccessKey == "from-file")
    }

    @Test func badValuesNameTheirSetting() {
        #expect(throws: ServeSettings.Invalid.self) {
            try ServeSettings(flags: .init([.storageEndpoint: "minio:9000"]), environment: Self.keys, workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        }
        do {
            _ = try ServeSettings(flags: .init([.storageEndpoint: "http://minio:9000"]), environment: [:], workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
            Issue.record("an endpoint without credentials was taken")
        } catch {
            #expect(error.description.contains("AWS_ACCESS_KEY_ID"))
        }
        do {
            _ = try ServeSettings(flags: .init(), environment: ["AWS_ACCESS_KEY_ID": "AKID"], workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
            Issue.record("half the credentials were taken")
        } catch {
            #expect(error.description.contains("AWS_SECRET_ACCESS_KEY"))
        }
        #expect(throws: ServeSettings.Invalid.self) {
            try ServeSettings(flags: .init([.storageSpoolBytes: "1000"]), environment: Self.keys, workingDirectory: "/srv",
                                  isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        }
    }

    @Test func aFileCompleteInTheStoreIsAnnouncedOnce() {
        func status(_ state: ObjectUploadStatus.State) -> TaskStatus {
            var output = OutputStatus(url: "s3://rec/room.mp4", state: .live)
            output.uploads = [ObjectUploadStatus(file: "s3://rec/room.mp4", state: state)]
            return TaskStatus(taskId: "room", state: .running, startedAt: "2026-01-01T00:00:00Z", outputs: [output])
        }
        let changes = WebhookChange.changes(from: status(.uploading), to: status(.uploaded))
        #expect(changes.map(\.eventName) == ["output.uploaded"])
        guard case .outputUploaded(let change) = changes.first else { return }
        #expect(change.upload?.file == "s3://rec/room.mp4" && change.upload?.state == .uploaded)
        #expect(WebhookChange.changes(from: status(.uploaded), to: status(.uploaded)).isEmpty)
    }
}
