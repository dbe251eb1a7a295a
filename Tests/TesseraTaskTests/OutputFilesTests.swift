import Testing
import TesseraTask

@Suite struct OutputFilesTests {
    private func plan(_ outputs: [(url: String, path: String?)]) -> ResolvedTask {
        ResolvedTask(taskId: "t", mode: .mix, pace: .realtime, maxDurationSeconds: nil, idleTimeoutSeconds: 30, callbackUrl: nil,
                     inputs: [], video: nil, audio: AudioSettings(sampleRate: 48000, channels: 2, bitrateKbps: 128, codec: "aac"),
                     layout: nil, audioMix: AudioMixPlan(gains: []),
                     outputs: outputs.map { output in
                         ResolvedOutput(url: output.url, kind: output.path.map { .file(path: $0, container: .mp4) } ?? .rtmp)
                     })
    }

    private func paths(_ plan: ResolvedTask) -> [String?] {
        plan.outputs.map { if case .file(let path, _) = $0.kind { return path } else { return nil } }
    }

    private let none: (String) -> Bool = { _ in false }

    @Test func aNewTaskWritesItsOwnNamesAndEachRestartANewFile() {
        var files = OutputFiles()
        let task = plan([("rec/room42.mp4", "/out/rec/room42.mp4"), ("rtmp://cdn/live/k", nil)])
        #expect(paths(files.beginRun(task, resuming: false, exists: none)) == ["/out/rec/room42.mp4", nil])
        #expect(paths(files.beginRun(task, resuming: false, exists: none)) == ["/out/rec/room42.1.mp4", nil])
        #expect(paths(files.beginRun(task, resuming: true, exists: none)) == ["/out/rec/room42.2.mp4", nil])
        #expect(files.files(of: "rec/room42.mp4") == ["rec/room42.mp4", "rec/room42.1.mp4", "rec/room42.2.mp4"])
        #expect(files.files(of: "rtmp://cdn/live/k") == nil)
    }

    @Test func aResumedTaskNeverOverwritesAFileItDidNotRecord() {
        var files = OutputFiles()
        let task = plan([("a.mp4", "/out/a.mp4")])
        let existing: Set<String> = ["/out/a.mp4", "/out/a.1.mp4"]
        #expect(paths(files.beginRun(task, resuming: true, exists: existing.contains)) == ["/out/a.2.mp4"])
        #expect(files.files(of: "a.mp4") == ["a.mp4", "a.2.mp4"])
    }

    @Test func anUpdateKeepsOpenFilesAndAReAddedOutputStartsANewOne() {
        var files = OutputFiles(["a.mp4": ["a.mp4", "a.1.mp4"]])
        let both = plan([("a.mp4", "/out/a.mp4"), ("b.mp4", "/out/b.mp4")])
        #expect(paths(files.beginRun(plan([("a.mp4", "/out/a.mp4")]), resuming: true, exists: none)) == ["/out/a.2.mp4"])
        #expect(paths(files.apply(both, exists: none)) == ["/out/a.2.mp4", "/out/b.mp4"])
        #expect(paths(files.apply(plan([("b.mp4", "/out/b.mp4")]), exists: none)) == ["/out/b.mp4"])
        // a.mp4 was closed by the update before: coming back, it must not reopen a.2.mp4.
        #expect(paths(files.apply(both, exists: { $0 == "/out/a.2.mp4" })) == ["/out/a.3.mp4", "/out/b.mp4"])
    }

    /// Issue 30: a task started after another ended on the same name used to replace its file.
    @Test func aNewTaskNeverOverwritesAnEarlierRecordingAndListsOnlyItsOwnFile() {
        var files = OutputFiles()
        let task = plan([("rec/rec.mp4", "/out/rec/rec.mp4")])
        let existing: Set<String> = ["/out/rec/rec.mp4"]
        #expect(paths(files.beginRun(task, resuming: false, exists: existing.contains)) == ["/out/rec/rec.1.mp4"])
        #expect(files.files(of: "rec/rec.mp4") == ["rec/rec.1.mp4"])
    }

    private func hlsPlan(_ url: String, playlist: String) -> ResolvedTask {
        var task = plan([])
        task.outputs = [ResolvedOutput(url: url, kind: .hls(HLSSettings(playlist: playlist, overHTTP: false)))]
        return task
    }

    private func playlists(_ plan: ResolvedTask) -> [String?] {
        plan.outputs.map { if case .hls(let settings) = $0.kind { return settings.playlist } else { return nil } }
    }

    @Test func aPlaylistAnotherTaskWroteMovesToTheNextFreeNameAndKeepsItForRestarts() {
        var files = OutputFiles()
        let task = hlsPlan("hls/live1.m3u8", playlist: "/out/hls/live1.m3u8")
        let existing: Set<String> = ["/out/hls/live1.m3u8", "/out/hls/live1.1.m3u8"]
        #expect(playlists(files.beginRun(task, resuming: false, foreign: ["hls/live1.m3u8"], exists: existing.contains))
                == ["/out/hls/live1.2.m3u8"])
        #expect(files.files(of: "hls/live1.m3u8") == ["hls/live1.2.m3u8"])
        // A restart of the same task continues its own playlist (a discontinuity, not a new name).
        #expect(playlists(files.beginRun(task, resuming: true, exists: { _ in true })) == ["/out/hls/live1.2.m3u8"])
    }

    @Test func aPlaylistThisTaskWroteIsContinuedInPlace() {
        var files = OutputFiles()
        let task = hlsPlan("hls/live1.m3u8", playlist: "/out/hls/live1.m3u8")
        #expect(playlists(files.beginRun(task, resuming: false, foreign: [], exists: { _ in true })) == ["/out/hls/live1.m3u8"])
        #expect(files.files(of: "hls/live1.m3u8") == nil)
        // A playlist named as foreign that does not exist yet is simply written.
        var fresh = OutputFiles()
        #expect(playlists(fresh.beginRun(task, resuming: false, foreign: ["hls/live1.m3u8"], exists: { _ in false }))
                == ["/out/hls/live1.m3u8"])
    }

    @Test func anUpdateAddingAnotherTasksPlaylistMovesOffIt() {
        var files = OutputFiles()
        _ = files.beginRun(plan([]), resuming: false, exists: none)
        let task = hlsPlan("hls/live1.m3u8", playlist: "/out/hls/live1.m3u8")
        #expect(playlists(files.apply(task, foreign: ["hls/live1.m3u8"], exists: { $0 == "/out/hls/live1.m3u8" }))
                == ["/out/hls/live1.1.m3u8"])
        #expect(files.files(of: "hls/live1.m3u8") == ["hls/live1.1.m3u8"])
    }
}
