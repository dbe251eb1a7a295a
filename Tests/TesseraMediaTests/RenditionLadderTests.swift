import Foundation
import Testing
import TesseraComposition
import TesseraTask
import TesseraMedia

/// An offline task's composite through `OutputSet` into an HLS ladder and a file of one rendition:
/// every rendition encoded once, each variant cut on the same keyframes, read back by ffprobe.
@Suite struct RenditionLadderTests {
    static let video = VideoSettings(width: 640, height: 360, fps: 30, bitrateKbps: 1000, gopFrames: 30, codec: "h264",
                                     preset: "ultrafast",
                                     renditions: [Rendition(width: 480, height: 270, bitrateKbps: 600, fps: 30),
                                                  Rendition(width: 320, height: 180, bitrateKbps: 300, fps: 15, frameStep: 2)])
    static let audio = AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 64, codec: "aac")

    /// `ffprobe`'s first video stream of `path` as `width,height,avg_frame_rate,packets`.
    static func probe(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                             "stream=width,height,avg_frame_rate,nb_read_packets", "-of", "csv=p=0", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test func everyRenditionIsEncodedOnceAndPublished() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ladder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hls = HLSSettings(playlist: folder + "/abr/show.m3u8", overHTTP: false, segmentSeconds: 1)
        let outputs = [ResolvedOutput(url: "abr/show.m3u8", kind: .hls(hls)),
                       ResolvedOutput(url: "small.mp4", kind: .file(path: folder + "/small.mp4", container: .mp4), rendition: 2)]
        let set = try OutputSet(outputs: outputs, video: Self.video, audio: Self.audio, interrupt: InterruptFlag(),
                                live: false, giveUpSeconds: 60)
        let tone = UnsafeMutablePointer<Float>.allocate(capacity: 1600)
        defer { tone.deallocate() }
        for index in 0..<1600 { tone[index] = sinf(Float(index) * 0.05) * 0.1 }
        for frame in 0..<60 {
            let canvas = YUVImage(width: 640, height: 360)
            canvas.fill(PixelRect(x: 0, y: 0, width: 640, height: 360), with: .black)
            canvas.fill(PixelRect(x: 320 + (frame * 4) % 300, y: 0, width: 20, height: 360), with: YUVColor(y: 200, u: 128, v: 128))
            // Frame 11 is one the 15 fps rendition skips: it carries the message on frame 12.
            try set.writeVideo(canvas, frameIndex: Int64(frame), sei: frame == 11 ? [Self.sei] : [])
            try set.writeAudio([tone, tone], count: 1600, position: Int64(frame) * 1600)
        }
        #expect(set.encodes == ["h264-high", "h264-high-r1-480x270", "h264-high-r2-320x180", "aac"])
        try set.finish()

        let master = try String(contentsOfFile: folder + "/abr/show.m3u8", encoding: .utf8)
        #expect(master.components(separatedBy: "#EXT-X-STREAM-INF:").count == 4)
        #expect(master.contains("RESOLUTION=320x180,FRAME-RATE=15.000,CODECS=\"avc1."))
        let sizes = ["640,360,30/1,60", "480,270,30/1,60", "320,180,15/1,30"]
        for (index, expected) in sizes.enumerated() {
            let playlist = folder + "/abr/show_r\(index).m3u8"
            #expect(try Self.probe(playlist) == expected)
            let text = try String(contentsOfFile: playlist, encoding: .utf8)
            // Two 1 s segments in every variant: cut on the same keyframes.
            #expect(text.components(separatedBy: "#EXTINF:1.000000,").count == 3, "\(text)")
            #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        }
        #expect(try Self.probe(folder + "/small.mp4") == "320,180,15/1,30")
        // The SEI message is in every variant and in the rendition's recording, once each.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/abr")
        for index in 0..<3 {
            let variant = files.filter { $0.hasPrefix("show_r\(index)_") }
                .compactMap { FileManager.default.contents(atPath: folder + "/abr/" + $0) }
            #expect(variant.map { Self.count(Self.marker, in: $0) }.reduce(0, +) == 1, "rendition \(index)")
        }
        #expect(Self.count(Self.marker, in: try Data(contentsOf: URL(fileURLWithPath: folder + "/small.mp4"))) == 1)
    }

    static let marker = Array("tessera-ladder-sei".utf8)
    /// user_data_unregistered: a 16-byte UUID, then the text.
    static let sei = SEIMessage(payloadType: SEIMessage.unregisteredUserData, payload: Array(repeating: 0x42, count: 16) + marker)

    static func count(_ needle: [UInt8], in data: Data) -> Int {
        let bytes = [UInt8](data)
        guard bytes.count >= needle.count else { return 0 }
        return (0...(bytes.count - needle.count)).filter { bytes[$0] == needle[0] && Array(bytes[$0..<($0 + needle.count)]) == needle }.count
    }
}
