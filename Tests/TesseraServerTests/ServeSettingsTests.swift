import Foundation
import TesseraServer
import TesseraService
import Testing

@Suite struct ServeSettingsTests {
    @Test func defaults() throws {
        let settings = try ServeSettings(flags: .init(), environment: [:], workingDirectory: "/srv/media",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server == ServerConfiguration(host: "127.0.0.1", port: 8080, apiToken: nil,
                                                       maxBodyBytes: 1 << 20, shutdownSeconds: 10))
        #expect(settings.mediaRoot == "/srv/media")
        #expect(settings.outputDirectory == "/srv/media")
        #expect(settings.maxTasks == 16)
        #expect(settings.maxInputs == 32)
        #expect(settings.maxRegions == 64)
        #expect(settings.maxOutputs == 10)
        #expect(settings.maxDurationSeconds == nil)
        #expect(settings.maxWorkerRestarts == 2)
        #expect(settings.workerHangSeconds == 15)
        #expect(settings.outputGiveUpSeconds == 60)
        #expect(settings.rtpPortRange == 20000...20999)
        #expect(settings.rtpAnnounceAddress == "127.0.0.1")
        #expect(settings.webhookSecret == nil)
        #expect(settings.deniedHosts == [])
        #expect(settings.logLevel == .info)
        #expect(settings.configFile == nil)
    }

    @Test func environmentFillsWhatFlagsLeaveOut() throws {
        let environment = [
            "TESSERA_HOST": "0.0.0.0", "TESSERA_PORT": "9000", "TESSERA_MEDIA_ROOT": "media",
            "TESSERA_OUTPUT_DIR": "/var/out", "TESSERA_API_TOKEN": "tok", "TESSERA_MAX_TASKS": "4",
            "TESSERA_MAX_BODY_BYTES": "2048", "TESSERA_SHUTDOWN_SECONDS": "2.5", "TESSERA_LOG_LEVEL": "DEBUG",
            "TESSERA_RTP_PORTS": "30000-30099", "TESSERA_MAX_INPUTS": "3", "TESSERA_MAX_REGIONS": "5",
            "TESSERA_MAX_OUTPUTS": "2", "TESSERA_MAX_DURATION_SECONDS": "3600", "TESSERA_MAX_WORKER_RESTARTS": "0",
            "TESSERA_WORKER_HANG_SECONDS": "7", "TESSERA_OUTPUT_GIVE_UP_SECONDS": "9", "TESSERA_WEBHOOK_SECRET": "hook",
            "TESSERA_DENY_HOSTS": "10.0.0.0/8, metadata.internal",
        ]
        let settings = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/srv",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server == ServerConfiguration(host: "0.0.0.0", port: 9000, apiToken: "tok",
                                                       maxBodyBytes: 2048, shutdownSeconds: 2.5))
        #expect(settings.mediaRoot == "/srv/media")
        #expect(settings.outputDirectory == "/var/out")
        #expect(settings.maxTasks == 4)
        #expect(settings.logLevel == .debug)
        #expect(settings.rtpPortRange == 30000...30099)
        #expect(settings.rtpAnnounceAddress == "127.0.0.1", "a wildcard host announces loopback")
        #expect([settings.maxInputs, settings.maxRegions, settings.maxOutputs, settings.maxWorkerRestarts] as [Int] == [3, 5, 2, 0])
        #expect(settings.maxDurationSeconds == 3600)
        #expect(settings.workerHangSeconds == 7)
        #expect(settings.outputGiveUpSeconds == 9)
        #expect(settings.webhookSecret == "hook")
        #expect(settings.deniedHosts == ["10.0.0.0/8", "metadata.internal"])
    }

    @Test func flagsWinOverEnvironment() throws {
        let flags = ServeSettings.Flags([.host: "::1", .port: "7000", .mediaRoot: "/m", .outputDir: "out", .apiToken: "flag",
                                         .maxTasks: "2", .maxBodyBytes: "10", .shutdownSeconds: "0", .logLevel: "error"])
        let environment = ["TESSERA_HOST": "0.0.0.0", "TESSERA_PORT": "9000", "TESSERA_API_TOKEN": "env",
                           "TESSERA_MEDIA_ROOT": "/env", "TESSERA_MAX_TASKS": "oops"]
        let settings = try ServeSettings(flags: flags, environment: environment, workingDirectory: "/srv",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server.host == "::1")
        #expect(settings.server.port == 7000)
        #expect(settings.server.apiToken == "flag")
        #expect(settings.mediaRoot == "/m")
        #expect(settings.outputDirectory == "/srv/out")
        #expect(settings.maxTasks == 2)
        #expect(settings.logLevel == .error)
        #expect(settings.rtpAnnounceAddress == "::1", "a concrete host is announced as is")
    }

    @Test func precedenceIsFlagThenEnvironmentThenFileThenDefault() throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("tessera.json", #"{"port": 1001, "maxTasks": 3, "maxInputs": 4, "logLevel": "warning"}"#)
        let environment = ["TESSERA_PORT": "2002", "TESSERA_MAX_TASKS": "5"]
        let settings = try ServeSettings(flags: .init([.port: "3003"], config: config), environment: environment,
                                         workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server.port == 3003, "flag over environment and file")
        #expect(settings.maxTasks == 5, "environment over file")
        #expect(settings.maxInputs == 4, "file over default")
        #expect(settings.logLevel == .warning)
        #expect(settings.maxRegions == 64, "default where no layer says")
        #expect(settings.configFile == config)
    }

    @Test func configFileFromTheEnvironmentAndRelativePathsAgainstItsDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("token.txt", "file-token\n")
        _ = try directory.write("conf/serve.json", """
            {"mediaRoot": "../media", "outputDir": "out", "apiTokenFile": "../token.txt",
             "denyHosts": ["169.254.0.0/16", "metadata.internal"], "rtpPorts": "40000-40001",
             "rtpAddress": "192.0.2.7", "maxDurationSeconds": 90.5, "webhookSecret": "s"}
            """)
        let settings = try ServeSettings(flags: .init(), environment: ["TESSERA_CONFIG": "conf/serve.json"],
                                         workingDirectory: directory.path,
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.mediaRoot == directory.path + "/media")
        #expect(settings.outputDirectory == directory.path + "/conf/out")
        #expect(settings.server.apiToken == "file-token", "trailing newline dropped")
        #expect(settings.deniedHosts == ["169.254.0.0/16", "metadata.internal"])
        #expect(settings.rtpPortRange == 40000...40001)
        #expect(settings.rtpAnnounceAddress == "192.0.2.7")
        #expect(settings.maxDurationSeconds == 90.5)
        #expect(settings.webhookSecret == "s")
    }

    @Test(arguments: [
        (#"{"prot": 8080}"#, #"unknown key "prot""#),
        (#"{"port": "8080"}"#, #"key "port": expected an integer, got a string"#),
        (#"{"port": 80.5}"#, #"key "port": expected an integer, got 80.5"#),
        (#"{"maxTasks": 0}"#, #"key "maxTasks": must be from 1"#),
        (#"{"host": 1}"#, #"key "host": expected a string, got a number"#),
        (#"{"denyHosts": [1]}"#, #"key "denyHosts": expected an array of strings"#),
        (#"{"denyHosts": "10.0.0.0/33"}"#, #"key "denyHosts": "10.0.0.0/33" is neither"#),
        (#"{"rtpPorts": "20001-20999"}"#, #"key "rtpPorts": the first port must be even"#),
        (#"{"logLevel": null}"#, #"key "logLevel": expected a string, got null"#),
        (#"[1, 2]"#, "expected a JSON object, got an array"),
        (#"{"port": 80"#, "malformed JSON"),
    ])
    func badConfigFileNamesTheFileAndKey(text: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("bad.json", text)
        #expect {
            _ = try ServeSettings(flags: .init(config: config), environment: [:], workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        } throws: { error in
            "\(error)".hasPrefix("config file \(config): ") && "\(error)".contains(message)
        }
    }

    @Test func missingConfigFileIsAnError() {
        #expect {
            _ = try ServeSettings(flags: .init(config: "/no/such/tessera.json"), environment: [:], workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        } throws: { error in
            "\(error)".hasPrefix("config file /no/such/tessera.json: cannot be read")
        }
    }

    @Test(arguments: [
        (["TESSERA_PORT": "http"], "TESSERA_PORT: expected an integer"),
        (["TESSERA_PORT": "70000"], "TESSERA_PORT: must be from 0 to 65535"),
        (["TESSERA_MAX_TASKS": "0"], "TESSERA_MAX_TASKS: must be from 1"),
        (["TESSERA_MAX_OUTPUTS": "11"], "TESSERA_MAX_OUTPUTS: must be from 1 to 10"),
        (["TESSERA_SHUTDOWN_SECONDS": "soon"], "TESSERA_SHUTDOWN_SECONDS: expected a number"),
        (["TESSERA_LOG_LEVEL": "loud"], "TESSERA_LOG_LEVEL: expected one of"),
        (["TESSERA_RTP_PORTS": "20000"], "TESSERA_RTP_PORTS: expected FIRST-LAST"),
        (["TESSERA_RTP_PORTS": "20001-20010"], "TESSERA_RTP_PORTS: the first port must be even"),
        (["TESSERA_RTP_PORTS": "1000-1010"], "TESSERA_RTP_PORTS: ports must be from 1024 to 65535"),
        (["TESSERA_RTP_PORTS": "20000-70000"], "TESSERA_RTP_PORTS: ports must be from 1024 to 65535"),
        (["TESSERA_RTP_PORTS": "20000-20000"], "TESSERA_RTP_PORTS: the range must hold at least 2 ports"),
        (["TESSERA_DENY_HOSTS": "10.0.0.0/8,bad host"], #"TESSERA_DENY_HOSTS: "bad host" is neither"#),
        (["TESSERA_API_TOKEN": "a", "TESSERA_API_TOKEN_FILE": "/x"], "TESSERA_API_TOKEN and TESSERA_API_TOKEN_FILE: give one"),
        (["TESSERA_API_TOKEN_FILE": "/no/such/token"], "TESSERA_API_TOKEN_FILE: cannot read /no/such/token"),
    ])
    func badEnvironmentNamesTheVariable(environment: [String: String], message: String) {
        #expect {
            _ = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test(arguments: [
        ([ServeSetting.port: "8o80"], "--port: expected an integer, got \"8o80\""),
        ([.rtpPorts: "20000-20001-3"], "--rtp-ports: expected FIRST-LAST"),
        ([.maxDurationSeconds: "0"], "--max-duration-seconds: must be from 1"),
    ])
    func badFlagNamesTheFlag(flags: [ServeSetting: String], message: String) {
        #expect {
            _ = try ServeSettings(flags: .init(flags), environment: [:], workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func tokenFileFlagWinsOverTokenVariable() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("secret", "  from-file \n")
        let settings = try ServeSettings(flags: .init([.apiTokenFile: file, .webhookSecretFile: file]),
                                         environment: ["TESSERA_API_TOKEN": "from-env", "TESSERA_WEBHOOK_SECRET": "env"],
                                         workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server.apiToken == "from-file")
        #expect(settings.webhookSecret == "from-file")
    }

    @Test func emptyTokenMeansNoToken() throws {
        let settings = try ServeSettings(flags: .init(), environment: ["TESSERA_API_TOKEN": ""], workingDirectory: "/",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        #expect(settings.server.apiToken == nil)
        #expect(ServerConfiguration(apiToken: "").apiToken == nil)
    }

    @Test func registryConfigurationCarriesEverySetting() throws {
        let environment = ["TESSERA_MAX_INPUTS": "3", "TESSERA_MAX_REGIONS": "5", "TESSERA_MAX_OUTPUTS": "2",
                           "TESSERA_MAX_DURATION_SECONDS": "30", "TESSERA_MAX_WORKER_RESTARTS": "4",
                           "TESSERA_WORKER_HANG_SECONDS": "6", "TESSERA_OUTPUT_GIVE_UP_SECONDS": "8",
                           "TESSERA_RTP_PORTS": "21000-21009", "TESSERA_RTP_ADDRESS": "198.51.100.1",
                           "TESSERA_WEBHOOK_SECRET": "w", "TESSERA_DENY_HOSTS": "10.0.0.0/8", "TESSERA_MAX_TASKS": "7"]
        let settings = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/m",
                                         isLocalAddress: UDPPortChecker.unchecked.isLocalAddress)
        let registry = settings.registryConfiguration(workerExecutable: "/bin/tessera", udpPorts: .unchecked)
        #expect(registry.mediaRoot == "/m" && registry.outputDirectory == "/m" && registry.maxTasks == 7)
        #expect(registry.workerExecutable == "/bin/tessera" && registry.logLevel == "info")
        #expect([registry.maxInputs, registry.maxRegions, registry.maxOutputs, registry.maxWorkerRestarts] as [Int] == [3, 5, 2, 4])
        #expect(registry.maxTaskDurationSeconds == 30)
        #expect(registry.workerHangSeconds == 6 && registry.outputGiveUpSeconds == 8)
        #expect(registry.rtpPortRange == 21000...21009 && registry.rtpAnnounceAddress == "198.51.100.1")
        #expect(registry.webhookSecret == "w" && registry.deniedHosts == ["10.0.0.0/8"])
    }

    /// The README's Configuration table has a row for every setting, spelled as the code spells it.
    @Test func theReadmeDocumentsEverySetting() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        for setting in ServeSetting.allCases {
            let row = "| `\(setting.flag)` | `\(setting.environmentVariable)` | `\(setting.key)` |"
            #expect(text.contains(row), "README.md lacks the row \(row)")
        }
    }

    @Test func eachSettingHasItsThreeSpellingsAndHelp() {
        #expect(ServeSetting.maxBodyBytes.flag == "--max-body-bytes")
        #expect(ServeSetting.maxBodyBytes.environmentVariable == "TESSERA_MAX_BODY_BYTES")
        #expect(ServeSetting.outputDir.flag == "--output-dir")
        #expect(ServeSetting.outputDir.environmentVariable == "TESSERA_OUTPUT_DIR")
        #expect(ServeSetting.rtpPorts.environmentVariable == "TESSERA_RTP_PORTS")
        for setting in ServeSetting.allCases {
            #expect(setting.help.contains("env \(setting.environmentVariable), config key \(setting.key)"))
            #expect(setting.help.contains("[default: "))
        }
    }
}

/// A fresh directory under the system's temporary directory, removed when the value is dropped.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-test-\(UUID().uuidString)")
            .standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` at `relative` (directories made) and returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let file = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
