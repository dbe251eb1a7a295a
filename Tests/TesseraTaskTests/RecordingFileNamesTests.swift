import Testing
import TesseraTask

@Suite struct RecordingFileNamesTests {
    @Test(arguments: [
        ("room42.mp4", 0, "room42.mp4"),
        ("room42.mp4", 1, "room42.1.mp4"),
        ("rec/room42.mp4", 2, "rec/room42.2.mp4"),
        ("/out/a.b/take", 1, "/out/a.b/take.1"),
        ("/out/.hidden", 3, "/out/.hidden.3"),
        ("file:///out/live.flv", 1, "file:///out/live.1.flv"),
    ])
    func names(path: String, index: Int, expected: String) {
        #expect(RecordingFileNames.name(path, index: index) == expected)
        #expect(RecordingFileNames.index(of: expected, first: path) == index)
    }

    @Test func nextIndexSkipsFilesThatExist() {
        let existing: Set<String> = ["/o/r.1.mp4", "/o/r.2.mp4"]
        #expect(RecordingFileNames.nextIndex(after: 0, path: "/o/r.mp4", exists: existing.contains) == 3)
        #expect(RecordingFileNames.nextIndex(after: 3, path: "/o/r.mp4", exists: existing.contains) == 4)
    }
}
