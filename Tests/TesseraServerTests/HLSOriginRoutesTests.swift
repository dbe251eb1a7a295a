import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraServer
import TesseraService
import TesseraWorkerProtocol

/// A service with one task whose HLS output is a folder of real files, and one that runs on
/// another node: what the origin's routes see of the cluster.
struct HLSOriginService: TaskService {
    let folder: String
    let board: HLSProgressBoard
    static let key = "viewer-key-0123456789abcdef"
    static let otherKey = "other-key-0123456789abcdef"

    var task: HLSOriginTask {
        HLSOriginTask(taskId: "room-1", outputs: [HLSOriginOutput(url: "live/room.m3u8", playlistPath: folder + "/room.m3u8",
                                                                   viewerKey: Self.key),
                                                   HLSOriginOutput(url: "live/room_x.m3u8", playlistPath: folder + "/room_x.m3u8",
                                                                   viewerKey: Self.otherKey)],
                      latestThumbnails: [folder + "/room_thumb_latest.jpg"], board: board)
    }

    /// Tasks this node runs, and those another node runs (by its base URL; port 9 refuses).
    var local: Set<String> = ["room-1"]
    var remote: [String: String] = ["elsewhere": "http://127.0.0.1:9/"]

    func hlsOrigin(_ taskId: String) async throws -> HLSOriginRoute {
        if local.contains(taskId) { return .here(task) }
        if let base = remote[taskId] { return .elsewhere(baseURL: base) }
        throw ServiceError.taskNotFound(taskId)
    }

    func create(_ body: Data) async throws -> TaskStatus { throw ServiceError.shuttingDown }
    func list() async -> [TaskStatus] { [] }
    func status(_ taskId: String) async throws -> TaskStatus { throw ServiceError.taskNotFound(taskId) }
    func update(_ taskId: String, _ body: Data) async throws -> TaskStatus { throw ServiceError.taskNotFound(taskId) }
    func stop(_ taskId: String) async throws -> TaskStatus { throw ServiceError.taskNotFound(taskId) }
    func snapshot(_ taskId: String) async throws -> Data { throw ServiceError.taskNotFound(taskId) }
    func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted { throw ServiceError.taskNotFound(taskId) }
    func shutdown(deadlineSeconds seconds: Double) async {}
}

@Suite struct HLSOriginRoutesTests {
    static let token = "api-token-xyz"

    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-TARGETDURATION:1
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=6.0
        #EXT-X-PART-INF:PART-TARGET=0.333
        #EXT-X-MEDIA-SEQUENCE:0
        #EXTINF:1.0,
        room_00000.m4s
        #EXT-X-PART:DURATION=0.333,URI="room_00001.0.m4s",INDEPENDENT=YES
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="room_00001.1.m4s"

        """

    /// A folder with a playlist, its delta, a segment, a part and a file of another name.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hls-origin-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try playlist.write(toFile: folder + "/room.m3u8", atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-SKIP:SKIPPED-SEGMENTS=0\n".write(toFile: folder + "/room_delta.m3u8", atomically: true, encoding: .utf8)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/room_00000.m4s"))
        try Data([4, 5]).write(to: URL(fileURLWithPath: folder + "/room_00001.0.m4s"))
        try Data([9]).write(to: URL(fileURLWithPath: folder + "/secret.mp4"))
        // Another output of the task in the same folder, whose stem starts with `room_`.
        try playlist.replacingOccurrences(of: "room_", with: "room_x_").write(toFile: folder + "/room_x.m3u8", atomically: true, encoding: .utf8)
        try Data([8]).write(to: URL(fileURLWithPath: folder + "/room_x_00000.m4s"))
        return folder
    }

    func withOrigin(_ body: @Sendable @escaping (any TestClientProtocol, HLSOriginService) async throws -> Void) async throws {
        let service = HLSOriginService(folder: try Self.folder(), board: HLSProgressBoard())
        defer { try? FileManager.default.removeItem(atPath: service.folder) }
        let app = makeTesseraApplication(service: service, configuration: ServerConfiguration(host: "127.0.0.1", port: 0, apiToken: Self.token),
                                         logger: TestServer.logger, metrics: TesseraMetrics())
        try await app.test(.router) { client in try await body(client, service) }
    }

    static func uri(_ file: String, key: String = HLSOriginService.key, task: String = "room-1") -> String {
        "/v1/tasks/\(task)/hls/\(key)/\(file)"
    }

    @Test func aPlaylistIsServedWithoutTheTokenWithItsTypeCachingAndCORS() async throws {
        try await withOrigin { client, _ in
            let response = try await client.execute(uri: Self.uri("room.m3u8"), method: .get)
            #expect(response.status == .ok)
            #expect(response.text == Self.playlist)
            #expect(response.headers[.contentType] == "application/vnd.apple.mpegurl")
            #expect(response.headers[.cacheControl] == "max-age=1")
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.accessControlExposeHeaders]?.contains("Age") == true)
        }
    }

    @Test func mediaIsImmutable() async throws {
        try await withOrigin { client, _ in
            let segment = try await client.execute(uri: Self.uri("room_00000.m4s"), method: .get)
            #expect(segment.status == .ok)
            #expect(Array(segment.body.readableBytesView) == [1, 2, 3])
            #expect(segment.headers[.contentType] == "video/iso.segment")
            #expect(segment.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(segment.headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test func aSegmentByteRangeIs206AndPastTheEndIs416() async throws {
        try await withOrigin { client, _ in
            var headers = HTTPFields()
            headers[.range] = "bytes=1-"
            let part = try await client.execute(uri: Self.uri("room_00000.m4s"), method: .get, headers: headers)
            #expect(part.status == .partialContent)
            #expect(Array(part.body.readableBytesView) == [2, 3])
            #expect(part.headers[.contentRange] == "bytes 1-2/3")
            #expect(part.headers[.cacheControl] == "public, max-age=31536000, immutable")
            headers[.range] = "bytes=3-"
            let past = try await client.execute(uri: Self.uri("room_00000.m4s"), method: .get, headers: headers)
            #expect(past.status == .rangeNotSatisfiable)
            #expect(past.headers[.contentRange] == "bytes */3")
            let whole = try await client.execute(uri: Self.uri("room_00000.m4s"), method: .get)
            #expect(whole.status == .ok && whole.headers[.acceptRanges] == "bytes")
        }
    }

    @Test func aWrongKeyAnUnknownFileAndAForeignFileAreTheSame404() async throws {
        try await withOrigin { client, _ in
            var bodies: Set<String> = []
            for uri in [Self.uri("room.m3u8", key: "viewer-key-0123456789abcdeX"), Self.uri("room.m3u8", key: "short"),
                        Self.uri("room_00009.m4s"), Self.uri("secret.mp4"), Self.uri("..%2Fsecret.mp4"),
                        Self.uri("room_x.m3u8"), Self.uri("room_x_00000.m4s"), Self.uri("room_00000.m4s", key: HLSOriginService.otherKey),
                        Self.uri("room.m3u8", task: "nope")] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.headers[.accessControlAllowOrigin] == "*", "\(uri)")
                #expect(response.headers[.cacheControl] == "no-store", "\(uri)")
                bodies.insert(response.text)
            }
            #expect(bodies.count == 1)
        }
    }

    @Test func eachOutputOfASharedFolderIsServedUnderItsOwnKeyOnly() async throws {
        try await withOrigin { client, _ in
            let mine = try await client.execute(uri: Self.uri("room_x_00000.m4s", key: HLSOriginService.otherKey), method: .get)
            #expect(mine.status == .ok)
            #expect(Array(mine.body.readableBytesView) == [8])
            let playlist = try await client.execute(uri: Self.uri("room_x.m3u8", key: HLSOriginService.otherKey), method: .get)
            #expect(playlist.status == .ok && playlist.text.contains("room_x_00000.m4s"))
        }
    }

    @Test func theOtherTaskRoutesStillAskTheToken() async throws {
        try await withOrigin { client, _ in
            let answer1 = try await client.execute(uri: "/v1/tasks/room-1/thumbnail.jpg", method: .get)
            #expect(answer1.status == .unauthorized)
            let answer2 = try await client.execute(uri: "/v1/tasks/room-1/hls/\(HLSOriginService.key)", method: .get)
            #expect(answer2.status == .unauthorized)
            let answer3 = try await client.execute(uri: "/v1/tasks/room-1/hls/\(HLSOriginService.key)/room.m3u8/x", method: .get)
            #expect(answer3.status == .unauthorized)
        }
    }

    @Test func thePreflightIsAnswered() async throws {
        try await withOrigin { client, _ in
            var headers = HTTPFields()
            headers[.origin] = "https://player.example"
            headers[.accessControlRequestMethod] = "GET"
            headers[.accessControlRequestHeaders] = "range"
            let response = try await client.execute(uri: Self.uri("room.m3u8"), method: .options, headers: headers)
            #expect(response.status == .noContent)
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.accessControlAllowMethods]?.contains("GET") == true)
            #expect(response.headers[.accessControlAllowHeaders] == "range")
        }
    }

    @Test func aBlockingReloadIsHeldUntilThePartIsPublished() async throws {
        try await withOrigin { client, service in
            // Listed already: at once, cacheable for six target durations.
            let listed = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=0"), method: .get)
            #expect(listed.status == .ok)
            #expect(listed.headers[.cacheControl] == "max-age=6")
            async let held = client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=1"), method: .get)
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            try (Self.playlist + "#EXT-X-PART:DURATION=0.333,URI=\"room_00001.1.m4s\"\n")
                .write(toFile: service.folder + "/room.m3u8", atomically: true, encoding: .utf8)
            service.board.publish(playlist: service.folder + "/room.m3u8", position: HLSPartPosition(msn: 1, part: 1))
            let response = try await held
            #expect(response.status == .ok)
            #expect(response.text.contains("room_00001.1.m4s\""))
            #expect(ContinuousClock.now - started < .seconds(1))
        }
    }

    @Test func aBlockingReloadTimesOutWith503AndBadDirectivesAre400() async throws {
        try await withOrigin { client, _ in
            // Target duration 1 s: held three seconds at most (a second for this test's sake).
            let started = ContinuousClock.now
            let late = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=2"), method: .get)
            #expect(late.status == .serviceUnavailable)
            #expect(ContinuousClock.now - started >= .seconds(2.5))
            let answer4 = try await client.execute(uri: Self.uri("room.m3u8?_HLS_part=1"), method: .get)
            #expect(answer4.status == .badRequest)
            let answer5 = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=9"), method: .get)
            #expect(answer5.status == .badRequest)
            // A number too long for any stream (and for 64 bits): 400 naming the parameter, no crash.
            let huge = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=92233720368547758070"), method: .get)
            #expect(huge.status == .badRequest)
            #expect(huge.text.contains("_HLS_part must be a whole number"))
            let edge = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=999999999"), method: .get)
            #expect(edge.status == .badRequest && edge.text.contains("_HLS_part 999999999"))
        }
    }

    @Test func aDeltaUpdateServesTheDeltaPlaylist() async throws {
        try await withOrigin { client, _ in
            let response = try await client.execute(uri: Self.uri("room.m3u8?_HLS_skip=YES"), method: .get)
            #expect(response.status == .ok)
            #expect(response.text.contains("EXT-X-SKIP"))
        }
    }

    @Test func theHintedPartIsHeldUntilWritten() async throws {
        try await withOrigin { client, service in
            async let held = client.execute(uri: Self.uri("room_00001.1.m4s"), method: .get)
            try await Task.sleep(for: .milliseconds(100))
            try Data([7, 7]).write(to: URL(fileURLWithPath: service.folder + "/room_00001.1.m4s"))
            service.board.publish(playlist: service.folder + "/room.m3u8", position: HLSPartPosition(msn: 1, part: 1))
            let response = try await held
            #expect(response.status == .ok)
            #expect(Array(response.body.readableBytesView) == [7, 7])
            // A part no hint names is not waited for.
            let answer6 = try await client.execute(uri: Self.uri("room_00001.4.m4s"), method: .get)
            #expect(answer6.status == .notFound)
        }
    }

    @Test func aTaskOnAnotherNodeIsAnsweredThroughThisOneOnceAndAnUnreachableOwnerIs503() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let board = HLSProgressBoard()
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, apiToken: Self.token)
        let owner = HLSOriginService(folder: folder, board: board, local: ["room-1", "elsewhere"], remote: [:])
        let ownerApp = makeTesseraApplication(service: owner, configuration: configuration, logger: TestServer.logger,
                                              metrics: TesseraMetrics())
        try await ownerApp.test(.live) { ownerClient in
            let port = try #require(ownerClient.port)
            let front = HLSOriginService(folder: folder, board: board, local: [], remote: ["elsewhere": "http://127.0.0.1:\(port)/",
                                                                                        "gone": "http://127.0.0.1:9/"])
            let app = makeTesseraApplication(service: front, configuration: configuration, logger: TestServer.logger,
                                             metrics: TesseraMetrics())
            try await app.test(.router) { client in
                let playlist = try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=0", task: "elsewhere"), method: .get)
                #expect(playlist.status == .ok)
                #expect(playlist.text == Self.playlist)
                #expect(playlist.headers[.contentType] == "application/vnd.apple.mpegurl")
                #expect(playlist.headers[.cacheControl] == "max-age=6")
                #expect(playlist.headers[.accessControlAllowOrigin] == "*")
                let segment = try await client.execute(uri: Self.uri("room_00000.m4s", task: "elsewhere"), method: .get)
                #expect(segment.status == .ok && Array(segment.body.readableBytesView) == [1, 2, 3])
                #expect(segment.headers[.cacheControl] == "public, max-age=31536000, immutable")
                var range = HTTPFields()
                range[.range] = "bytes=2-"
                let piece = try await client.execute(uri: Self.uri("room_00000.m4s", task: "elsewhere"), method: .get, headers: range)
                #expect(piece.status == .partialContent && Array(piece.body.readableBytesView) == [3])
                #expect(piece.headers[.contentRange] == "bytes 2-2/3")
                // Ten viewers' reloads held on the owner do not hold up an eleventh request.
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            try await client.execute(uri: Self.uri("room.m3u8?_HLS_msn=1&_HLS_part=1", task: "elsewhere"), method: .get).status
                        }
                    }
                    try await Task.sleep(for: .milliseconds(300))
                    let started = ContinuousClock.now
                    let other = try await client.execute(uri: Self.uri("room_00001.0.m4s", task: "elsewhere"), method: .get)
                    #expect(other.status == .ok)
                    #expect(ContinuousClock.now - started < .seconds(1.5), "queued behind the held reloads")
                    try (Self.playlist + "#EXT-X-PART:DURATION=0.333,URI=\"room_00001.1.m4s\"\n")
                        .write(toFile: folder + "/room.m3u8", atomically: true, encoding: .utf8)
                    board.publish(playlist: folder + "/room.m3u8", position: HLSPartPosition(msn: 1, part: 1))
                    for try await status in group { #expect(status == .ok) }
                }
                let wrong = try await client.execute(uri: Self.uri("room.m3u8", key: "wrong-key-0123456789abcdef", task: "elsewhere"),
                                                     method: .get)
                #expect(wrong.status == .notFound)
                // The thumbnail goes with the caller's token (a redirect to another host would drop it).
                try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: folder + "/room_thumb_latest.jpg"))
                let thumbnail = try await client.execute(uri: "/v1/tasks/elsewhere/thumbnail.jpg", method: .get, headers: bearer(Self.token))
                #expect(thumbnail.status == .ok && Array(thumbnail.body.readableBytesView) == [0xFF, 0xD8, 0xFF])
                #expect(thumbnail.headers[.contentType] == "image/jpeg")
                // A request passed on already is not passed on again.
                var marked = HTTPFields()
                marked[HTTPFields.Element.Name(ForwardedRequest.header)!] = "node-a"
                let again = try await client.execute(uri: Self.uri("room.m3u8", task: "elsewhere"), method: .get, headers: marked)
                #expect(again.status == .notFound)
                let gone = try await client.execute(uri: Self.uri("room.m3u8", task: "gone"), method: .get)
                #expect(gone.status == .serviceUnavailable)
                #expect(gone.headers[.accessControlAllowOrigin] == "*")
            }
        }
    }

    @Test func theLatestThumbnailAsksTheTokenAnd404sBeforeOne() async throws {
        try await withOrigin { client, service in
            let none = try await client.execute(uri: "/v1/tasks/room-1/thumbnail.jpg", method: .get, headers: bearer(Self.token))
            #expect(none.status == .notFound)
            try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: service.folder + "/room_thumb_latest.jpg"))
            let one = try await client.execute(uri: "/v1/tasks/room-1/thumbnail.jpg", method: .get, headers: bearer(Self.token))
            #expect(one.status == .ok)
            #expect(one.headers[.contentType] == "image/jpeg")
            #expect(Array(one.body.readableBytesView) == [0xFF, 0xD8, 0xFF])
        }
    }
}
