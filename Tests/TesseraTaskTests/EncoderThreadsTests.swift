import Foundation
import TesseraTask
import Testing

struct EncoderThreadsTests {
    @Test func aThreadPerUnitOfWorkAtMostXTwoSixtyFoursOwnChoice() {
        // 720p30 veryfast is the unit: one thread. 1080p30 is 2.25 units, 720p60 two.
        #expect(EncoderThreads.automatic(width: 1280, height: 720, fps: 30, preset: "veryfast", cores: 8) == 1)
        #expect(EncoderThreads.automatic(width: 1920, height: 1080, fps: 30, preset: "veryfast", cores: 8) == 3)
        #expect(EncoderThreads.automatic(width: 1280, height: 720, fps: 60, preset: "veryfast", cores: 8) == 2)
        // Slower presets count more; small or fast work never gets less than one.
        #expect(EncoderThreads.automatic(width: 1280, height: 720, fps: 30, preset: "medium", cores: 8) == 3)
        #expect(EncoderThreads.automatic(width: 320, height: 240, fps: 15, preset: "placebo", cores: 8) == 2)
        #expect(EncoderThreads.automatic(width: 64, height: 48, fps: 1, preset: "ultrafast", cores: 8) == 1)
        // Never more than x264's own 1.5 per core.
        #expect(EncoderThreads.automatic(width: 3840, height: 2160, fps: 60, preset: "slow", cores: 2) == 3)
        #expect(EncoderThreads.automatic(width: 3840, height: 2160, fps: 60, preset: "slow", cores: 1) == 1)
    }

    @Test func theTaskCanSayAndRangeIsChecked() throws {
        let json = """
            {"inputs": [{"id": "a", "url": "anchor.mp4"}],
             "encoder": {"video": {"width": 1920, "height": 1080, "threads": 4}},
             "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 1920, "height": 1080}]},
             "outputs": [{"url": "o.flv"}]}
            """
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(json)))
        #expect(task.video?.threads == 4)
        #expect(task.video?.encoderThreads(cores: 64) == 4)
        for bad in ["0", "17", #""two""#] {
            let refused = json.replacingOccurrences(of: #""threads": 4"#, with: #""threads": \#(bad)"#)
            #expect(TaskFixtures.issues(TaskFixtures.validate(refused)).map(\.path) == ["encoder.video.threads"])
        }
    }

    @Test func plansStoredBeforeThreadsExistedSizeThemselves() throws {
        let stored = #"{"width":1280,"height":720,"fps":30,"bitrateKbps":2500,"gopFrames":60,"codec":"h264","preset":"veryfast"}"#
        let settings = try JSONDecoder().decode(VideoSettings.self, from: Data(stored.utf8))
        #expect(settings.threads == nil && settings.latency == .normal)
        #expect(settings.encoderThreads(cores: 2) == 1)
    }
}
