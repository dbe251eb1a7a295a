import Testing
import TesseraTask

/// The master playlist of an HLS output with renditions, and its `CODECS` strings.
@Suite struct HLSLadderPlanTests {
    @Test(arguments: [
        ([0x67, 0x64, 0x00, 0x1F, 0xAC], "avc1.64001f"),   // High, level 3.1
        ([0x67, 0x42, 0xC0, 0x1E], "avc1.42c01e"),         // constrained baseline, level 3.0
        ([0x27, 0x4D, 0x40, 0x28], "avc1.4d4028"),         // Main 4.0, nal_ref_idc 1
    ])
    func avc1FromSPS(sps: [UInt8], expected: String) {
        #expect(HLSCodecs.avc1(sps: sps) == expected)
    }

    @Test func notAnSPS() {
        #expect(HLSCodecs.avc1(sps: [0x68, 0xEE, 0x3C, 0x80]) == nil)
        #expect(HLSCodecs.avc1(sps: [0x67, 0x64]) == nil)
        #expect(HLSCodecs.avc1(parameterSets: [[0x68, 0xEE, 0x3C, 0x80], [0x67, 0x64, 0x00, 0x28]]) == "avc1.640028")
    }

    static let video = VideoSettings(width: 1280, height: 720, fps: 30, bitrateKbps: 2500, gopFrames: 60, codec: "h264",
                                     preset: "veryfast",
                                     renditions: [Rendition(width: 640, height: 360, bitrateKbps: 700, fps: 15, frameStep: 2),
                                                  Rendition(width: 854, height: 480, bitrateKbps: 1200, fps: 30)])
    static let audio = AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 128, codec: "aac")

    @Test func variantsSitBesideTheMaster() {
        let plan = HLSLadderPlan(HLSSettings(playlist: "/out/shows/room.m3u8", overHTTP: false), renditions: 3)
        #expect(plan.variants.map(\.playlist) == ["/out/shows/room_r0.m3u8", "/out/shows/room_r1.m3u8", "/out/shows/room_r2.m3u8"])
        #expect(plan.variants[1].stem == "/out/shows/room_r1")
        let http = HLSLadderPlan(HLSSettings(playlist: "https://origin.example/live/room.m3u8", overHTTP: true, playlistType: .live),
                                 renditions: 2)
        #expect(http.variants[1] == HLSSettings(playlist: "https://origin.example/live/room_r1.m3u8", overHTTP: true, playlistType: .live))
    }

    @Test func masterListsEveryRenditionLargestFirst() {
        let plan = HLSLadderPlan(HLSSettings(playlist: "/out/room.m3u8", overHTTP: false), renditions: 3)
        let text = plan.masterPlaylist(video: Self.video, audio: Self.audio,
                                       codecs: ["avc1.64001f", "avc1.64001e", "avc1.64001e"])
        #expect(text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=2890800,AVERAGE-BANDWIDTH=2628000,RESOLUTION=1280x720,FRAME-RATE=30.000,CODECS="avc1.64001f,mp4a.40.2"
            room_r0.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1460800,AVERAGE-BANDWIDTH=1328000,RESOLUTION=854x480,FRAME-RATE=30.000,CODECS="avc1.64001e,mp4a.40.2"
            room_r2.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=910800,AVERAGE-BANDWIDTH=828000,RESOLUTION=640x360,FRAME-RATE=15.000,CODECS="avc1.64001e,mp4a.40.2"
            room_r1.m3u8

            """)
    }

    @Test func transportStreamsNeedVersion3AndUnknownCodecsAreLeftOut() {
        let plan = HLSLadderPlan(HLSSettings(playlist: "/out/room.m3u8", overHTTP: false, segmentFormat: .ts), renditions: 3)
        #expect(plan.masterPlaylist(video: Self.video, audio: Self.audio, codecs: []).contains("#EXT-X-VERSION:3\n"))
        #expect(!plan.masterPlaylist(video: Self.video, audio: Self.audio, codecs: []).contains("CODECS"))
    }
}
