import Foundation
import Testing
import TesseraTask

/// Where files may come from and go to (SPEC §5). These tests use real temporary directories,
/// since symbolic links are the point.
@Suite struct TaskValidatorPathTests {
    /// A media root with `in.mp4`, `logo.png` and a link `escape.mp4` to a file outside it; an
    /// output directory with a link `outside` to another directory outside it.
    final class Sandbox {
        let base: URL
        var media: String { base.appendingPathComponent("media").path }
        var out: String { base.appendingPathComponent("out").path }
        var secret: String { base.appendingPathComponent("secret").path }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-paths-\(UUID().uuidString)")
            let fm = FileManager.default
            for dir in ["media/sub", "out", "secret"] {
                try fm.createDirectory(atPath: base.appendingPathComponent(dir).path, withIntermediateDirectories: true)
            }
            for file in ["media/in.mp4", "media/sub/b.mp4", "media/logo.png", "secret/key.mp4", "secret/x.png"] {
                _ = fm.createFile(atPath: base.appendingPathComponent(file).path, contents: Data("x".utf8))
            }
            try fm.createSymbolicLink(atPath: media + "/escape.mp4", withDestinationPath: secret + "/key.mp4")
            try fm.createSymbolicLink(atPath: media + "/inside.mp4", withDestinationPath: media + "/sub/b.mp4")
            try fm.createSymbolicLink(atPath: media + "/secretdir", withDestinationPath: secret)
            try fm.createSymbolicLink(atPath: out + "/outside", withDestinationPath: secret)
            try fm.createSymbolicLink(atPath: out + "/dangling.mp4", withDestinationPath: secret + "/new.mp4")
        }

        deinit { try? FileManager.default.removeItem(at: base) }

        func options(confine: Bool = true) -> ValidationOptions {
            ValidationOptions(mediaRoot: media, outputDirectory: out, confinePaths: confine)
        }

        func validate(input: String, output: String = "o.mp4", image: String? = nil,
                      confine: Bool = true) -> Result<ResolvedTask, ValidationFailure> {
            var document = TaskFixtures.value(#"{"inputs": [{"id": "a"}], "outputs": [{}]}"#)
                .setting("inputs[0].url", to: .string(input))
                .setting("outputs[0].url", to: .string(output))
            if let image {
                document = document.setting("encoder", to: TaskFixtures.value(#"{"video": {"width": 64, "height": 64}}"#))
                    .setting("layout", to: TaskFixtures.value(#"{"regions": [{"x": 0, "y": 0, "width": 2, "height": 2}]}"#)
                        .setting("regions[0].image", to: .string(image)))
            }
            return TaskFixtures.validate(document, options: options(confine: confine))
        }
    }

    @Test func resolvesRelativeAbsoluteAndFileURLPathsInsideTheRoot() throws {
        let box = try Sandbox()
        let real = try #require(TaskFixtures.task(box.validate(input: "sub/../in.mp4")))
        let media = URL(fileURLWithPath: box.media).resolvingSymlinksInPath().path
        #expect(real.inputs[0].source == .file(path: media + "/in.mp4"))
        for url in [box.media + "/in.mp4", "file:in.mp4", "file://" + box.media + "/in.mp4", "./in.mp4"] {
            #expect(TaskFixtures.issues(box.validate(input: url)).isEmpty, "\(url)")
        }
        // A link that stays inside the root is fine, and resolves to its target.
        let linked = try #require(TaskFixtures.task(box.validate(input: "inside.mp4")))
        #expect(linked.inputs[0].source == .file(path: media + "/sub/b.mp4"))
    }

    @Test func confinementRefusesEscapes() throws {
        let box = try Sandbox()
        for url in ["../secret/key.mp4", "sub/../../secret/key.mp4", box.secret + "/key.mp4", "/etc/passwd",
                    "file://" + box.secret + "/key.mp4", "escape.mp4", "secretdir/key.mp4"] {
            let issues = TaskFixtures.issues(box.validate(input: url))
            #expect(issues.map(\.path) == ["inputs[0].url"], "\(url): \(issues)")
            #expect(issues.first?.message.contains("outside the allowed directory") == true, "\(url): \(issues)")
            // The message quotes the path as written, never where the media root lies.
            #expect(issues.first?.message.hasSuffix(": " + url) == true)
        }
        let image = TaskFixtures.issues(box.validate(input: "in.mp4", image: "../secret/x.png"))
        #expect(image.map(\.path) == ["layout.regions[0].image"])
    }

    @Test func confinementRefusesOutputEscapes() throws {
        let box = try Sandbox()
        #expect(TaskFixtures.issues(box.validate(input: "in.mp4", output: "rec/day1/o.mp4")).isEmpty)
        for url in ["../o.mp4", "/tmp/o.mp4", "outside/o.mp4", "dangling.mp4", "file:///etc/o.mp4"] {
            let issues = TaskFixtures.issues(box.validate(input: "in.mp4", output: url))
            #expect(issues.map(\.path) == ["outputs[0].url"], "\(url): \(issues)")
        }
    }

    @Test func withoutConfinementAnyPathIsAllowed() throws {
        let box = try Sandbox()
        let task = try #require(TaskFixtures.task(box.validate(input: "../secret/key.mp4", output: "../secret/o.mp4", confine: false)))
        #expect(task.inputs[0].source == .file(path: box.secret + "/key.mp4"))
        #expect(task.outputs[0].kind == .file(path: box.secret + "/o.mp4", container: .mp4))
    }

    @Test func aMissingFileIsNamedAsWritten() throws {
        let box = try Sandbox()
        // The service names its setting, never where its media root lies.
        #expect(TaskFixtures.issues(box.validate(input: "nope.mp4")).map(\.description)
            == ["inputs[0].url: file not found: nope.mp4 (looked in the server's media root, --media-root)"])
        // Offline, the folder searched in full: the first thing a newcomer needs to know.
        #expect(TaskFixtures.issues(box.validate(input: "sub/nope.mp4", confine: false)).map(\.description)
            == ["inputs[0].url: file not found: sub/nope.mp4 (looked in \(box.media)/sub/; relative paths resolve against --media-root)"])
        // An absolute path names its folder itself.
        #expect(TaskFixtures.issues(box.validate(input: box.media + "/nope.mp4", confine: false)).map(\.description)
            == ["inputs[0].url: file not found: \(box.media)/nope.mp4"])
    }

    @Test(arguments: [
        "concat:in.mp4|in.mp4", "subfile,,start,0,end,100,,:in.mp4", "data:video/mp4;base64,AAAA", "pipe:0", "fd:3",
        "ftp://host/a.mp4", "tcp://host:1234", "udp://239.0.0.1:1234", "rtp://host:5004", "hls:https://h/x.m3u8",
        "crypto:in.mp4", "async:file:in.mp4", "cache:in.mp4", "tee:in.mp4", "unix:/tmp/s", "gopher://h/x", "CONCAT:a|b",
        "rtsp://cam/stream", "sftp://h/a.mp4", "smb://h/a.mp4", "md5:in.mp4", "ffrtmphttp://h/x",
    ])
    func refusesOtherSchemes(url: String) {
        let issues = TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base(setting: "inputs[0].url", to: nil)
            .setting("inputs[0].url", to: .string(url))))
        #expect(issues.map(\.path) == ["inputs[0].url"], "\(issues)")
        let scheme = String(url.prefix { $0 != ":" && $0 != "," }).lowercased()
        #expect(issues.first?.message.hasPrefix("scheme \"\(scheme):\" is not allowed") == true, "\(issues)")
    }

    @Test(arguments: [
        ("rtmp://origin.local/live/a", ResolvedInput.Source.network(url: "rtmp://origin.local/live/a")),
        ("rtmps://origin.local/live/a", .network(url: "rtmps://origin.local/live/a")),
        ("http://10.0.0.5:8080/a.flv", .network(url: "http://10.0.0.5:8080/a.flv")),
        ("HTTPS://cdn.example/a.m3u8", .network(url: "HTTPS://cdn.example/a.m3u8")),
        ("srt://127.0.0.1:9000?mode=caller", .network(url: "srt://127.0.0.1:9000?mode=caller")),
        ("anchor.mp4", .file(path: "/media/anchor.mp4")),
        ("file:anchor.mp4", .file(path: "/media/anchor.mp4")),
        ("file:///media/anchor.mp4", .file(path: "/media/anchor.mp4")),
        ("file://localhost/media/anchor.mp4", .file(path: "/media/anchor.mp4")),
        ("file:///media/%61nchor.mp4", .file(path: "/media/anchor.mp4")),
        ("/media/./x/../anchor.mp4", .file(path: "/media/anchor.mp4")),
    ])
    func acceptsTheContractSchemes(url: String, expected: ResolvedInput.Source) throws {
        let document = TaskFixtures.base(setting: "inputs[0].url", to: nil).setting("inputs[0].url", to: .string(url))
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document)))
        #expect(task.inputs[0].source == expected)
    }

    @Test func aFileURLWithAHostIsRefused() {
        let document = TaskFixtures.base(setting: "inputs[0].url", to: #""file://server/share/a.mp4""#)
        #expect(TaskFixtures.issues(TaskFixtures.validate(document)).map(\.description)
            == ["inputs[0].url: a file: URL may not name a host"])
    }
}
