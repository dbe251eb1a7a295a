import Foundation
import Testing
import TesseraService

@Suite struct DiskSpaceWatchTests {
    @Test func warnsOnceWhenSpaceRunsLowAndOnceWhenItIsBack() {
        var watch = DiskSpaceWatch(minFreeBytes: 1000)
        #expect(watch.observe(freeBytes: 5000) == .none)
        #expect(!watch.isLow)
        #expect(watch.observe(freeBytes: 999) == .becameLow)
        #expect(watch.observe(freeBytes: 10) == .none)
        #expect(watch.isLow && watch.lastFreeBytes == 10)
        #expect(watch.observe(freeBytes: 1000) == .recovered)
        #expect(watch.observe(freeBytes: 2000) == .none)
    }

    @Test func readsARealFileSystem() throws {
        let free = try #require(FileSystemSpace.freeBytes(atPath: NSTemporaryDirectory()))
        #expect(free > 0)
        #expect(FileSystemSpace.freeBytes(atPath: "/no/such/directory/at/all") == nil)
    }
}
