import Foundation
import Testing
import TesseraTask

/// SPEC §5 in the validator: the deny-list on network URLs, percent-encoded traversal, and local
/// files that are playlists rather than media.
@Suite struct URLSafetyValidationTests {
    static func options(denying entries: [String]) -> ValidationOptions {
        var options = TaskFixtures.options()
        options.deniedHosts = try! HostDenyList(entries)
        options.resolveHost = HostDenyListTests.resolver(["origin.local": ["10.0.0.7"], "cdn.example": ["203.0.113.5"]])
        return options
    }

    @Test func deniedInputHostIsRefusedAtItsField() {
        let issues = TaskFixtures.issues(TaskFixtures.validate(TaskFixtures.base, options: Self.options(denying: ["10.0.0.0/8"])))
        #expect(issues.map(\.path) == ["inputs[1].url"], "\(issues)")
        #expect(issues.first?.message.contains("deny-list") == true)
    }

    @Test(arguments: ["rtmp://10.1.1.1/live/x", "rtmp://metadata.internal/live/x", "srt://[fd00::5]:9000",
                      "rtmps://user@10.2.2.2:443/live/x", "rtmp://%31%30.0.0.1/live/x"])
    func deniedOutputHostIsRefusedAtItsField(url: String) {
        let document = TaskFixtures.base(setting: "inputs[1]", to: nil)
            .setting("layout", to: TaskFixtures.value(#"{"regions": [{"input": "anchor", "x": 0, "y": 0, "width": 64, "height": 64}]}"#))
            .setting("outputs[0].url", to: .string(url))
        let issues = TaskFixtures.issues(TaskFixtures.validate(document,
                                                               options: Self.options(denying: ["10.0.0.0/8", "fd00::/8", "metadata.internal"])))
        #expect(issues.map(\.path) == ["outputs[0].url"], "\(url): \(issues)")
    }

    @Test func allowedHostsPassAndLoopbackIsAllowedByDefault() {
        let document = TaskFixtures.base(setting: "inputs[1].url", to: #""rtmp://cdn.example/live/guest""#)
            .setting("outputs", to: TaskFixtures.value(#"[{"url": "rtmp://127.0.0.1/live/o"}, {"url": "srt://192.168.1.5:9000"}]"#))
        #expect(TaskFixtures.issues(TaskFixtures.validate(document, options: Self.options(denying: ["10.0.0.0/8"]))).isEmpty)
        #expect(TaskFixtures.issues(TaskFixtures.validate(document)).isEmpty)
    }

    @Test func percentEncodedTraversalNeverLeavesTheRoot() throws {
        let box = try TaskValidatorPathTests.Sandbox()
        // In a file: URL the escape is decoded, then refused by the confinement check.
        for url in ["file://" + box.media + "/%2e%2e/secret/key.mp4", "file://" + box.media + "/%2e%2e%2fsecret%2fkey.mp4",
                    "file://" + box.media + "/sub/%2E%2E/%2E%2E/secret/key.mp4"] {
            let issues = TaskFixtures.issues(box.validate(input: url))
            #expect(issues.map(\.path) == ["inputs[0].url"], "\(url): \(issues)")
            #expect(issues.first?.message.contains("outside the allowed directory") == true, "\(url): \(issues)")
        }
        // A plain path is not percent-decoded, by Tessera or by FFmpeg's file protocol: it names
        // a file called "%2e%2e%2f…" inside the root, which does not exist.
        let plain = TaskFixtures.issues(box.validate(input: "%2e%2e%2fsecret%2fkey.mp4"))
        #expect(plain.map(\.description) == ["inputs[0].url: file not found: %2e%2e%2fsecret%2fkey.mp4 (looked in the server's media root, --media-root)"])
    }

    @Test(arguments: [
        ("list.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/passwd\n", "HLS playlist"),
        ("looks-like.mp4", "\u{FEFF}  #EXTM3U\n#EXTINF:10,\nfile:///etc/passwd\n", "HLS playlist"),
        ("list.ffconcat", "ffconcat version 1.0\nfile /etc/passwd\n", "ffconcat"),
        ("stream.mpd", "<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\">", "DASH"),
        ("session.sdp", "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\n", "SDP"),
    ])
    func localPlaylistsAreRefusedUpFront(name: String, content: String, kind: String) throws {
        let box = try TaskValidatorPathTests.Sandbox()
        try Data(content.utf8).write(to: URL(fileURLWithPath: box.media + "/" + name))
        let issues = TaskFixtures.issues(box.validate(input: name))
        #expect(issues.map(\.path) == ["inputs[0].url"], "\(issues)")
        #expect(issues.first?.message.contains(kind) == true, "\(issues)")
        // The same file as a region image is refused too.
        let image = name + ".png"
        try Data(content.utf8).write(to: URL(fileURLWithPath: box.media + "/" + image))
        let imageIssues = TaskFixtures.issues(box.validate(input: "in.mp4", image: image))
        #expect(imageIssues.map(\.path) == ["layout.regions[0].image"], "\(imageIssues)")
    }

    @Test func realMediaHeadersPass() {
        let mp4 = Data([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 64))
        let matroska = Data([0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 64))
        let flv = Data(Array("FLV".utf8) + [1, 5, 0, 0, 0, 9])
        for head in [mp4, matroska, flv, Data()] {
            #expect(LocalMediaSniffer.refusal(head: head) == nil)
        }
    }
}
