import Testing
import TesseraServer

@Suite struct ServeSettingsTests {
    @Test func defaults() throws {
        let settings = try ServeSettings(flags: .init(), environment: [:], workingDirectory: "/srv/media")
        #expect(settings.server == ServerConfiguration(host: "127.0.0.1", port: 8080, apiToken: nil,
                                                       maxBodyBytes: 1 << 20, shutdownSeconds: 10))
        #expect(settings.mediaRoot == "/srv/media")
        #expect(settings.outputDirectory == "/srv/media")
        #expect(settings.maxTasks == 16)
        #expect(settings.logLevel == .info)
    }

    @Test func environmentFillsWhatFlagsLeaveOut() throws {
        let environment = [
            "TESSERA_HOST": "0.0.0.0", "TESSERA_PORT": "9000", "TESSERA_MEDIA_ROOT": "media",
            "TESSERA_OUTPUT_DIR": "/var/out", "TESSERA_API_TOKEN": "tok", "TESSERA_MAX_TASKS": "4",
            "TESSERA_MAX_BODY_BYTES": "2048", "TESSERA_SHUTDOWN_SECONDS": "2.5", "TESSERA_LOG_LEVEL": "DEBUG",
        ]
        let settings = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/srv")
        #expect(settings.server == ServerConfiguration(host: "0.0.0.0", port: 9000, apiToken: "tok",
                                                       maxBodyBytes: 2048, shutdownSeconds: 2.5))
        #expect(settings.mediaRoot == "/srv/media")
        #expect(settings.outputDirectory == "/var/out")
        #expect(settings.maxTasks == 4)
        #expect(settings.logLevel == .debug)
    }

    @Test func flagsWinOverEnvironment() throws {
        let flags = ServeSettings.Flags(host: "::1", port: 7000, mediaRoot: "/m", outputDirectory: "out", apiToken: "flag",
                                        maxTasks: 2, maxBodyBytes: 10, shutdownSeconds: 0, logLevel: "error")
        let environment = ["TESSERA_HOST": "0.0.0.0", "TESSERA_PORT": "9000", "TESSERA_API_TOKEN": "env",
                           "TESSERA_MEDIA_ROOT": "/env", "TESSERA_MAX_TASKS": "oops"]
        let settings = try ServeSettings(flags: flags, environment: environment, workingDirectory: "/srv")
        #expect(settings.server.host == "::1")
        #expect(settings.server.port == 7000)
        #expect(settings.server.apiToken == "flag")
        #expect(settings.mediaRoot == "/m")
        #expect(settings.outputDirectory == "/srv/out")
        #expect(settings.maxTasks == 2)
        #expect(settings.logLevel == .error)
    }

    @Test(arguments: [
        (["TESSERA_PORT": "http"], "TESSERA_PORT: expected an integer"),
        (["TESSERA_PORT": "70000"], "TESSERA_PORT: must be from 0 to 65535"),
        (["TESSERA_MAX_TASKS": "0"], "TESSERA_MAX_TASKS: must be from 1"),
        (["TESSERA_SHUTDOWN_SECONDS": "soon"], "TESSERA_SHUTDOWN_SECONDS: expected a number"),
        (["TESSERA_LOG_LEVEL": "loud"], "TESSERA_LOG_LEVEL: expected one of"),
    ])
    func badEnvironmentNamesTheVariable(environment: [String: String], message: String) {
        #expect {
            _ = try ServeSettings(flags: .init(), environment: environment, workingDirectory: "/")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test func emptyTokenMeansNoToken() throws {
        let settings = try ServeSettings(flags: .init(), environment: ["TESSERA_API_TOKEN": ""], workingDirectory: "/")
        #expect(settings.server.apiToken == nil)
        #expect(ServerConfiguration(apiToken: "").apiToken == nil)
    }
}
