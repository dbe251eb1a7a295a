import Testing
import TesseraObjectStorage

/// The pure rules around uploads: where parts are cut, how retries wait, when the spool holds.
@Suite struct UploadRulesTests {
    /// A top-level MP4 box: 32-bit size, type, then `size - 8` bytes.
    static func box(_ type: String, _ size: Int) -> [UInt8] {
        let length = UInt32(size)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + Array(type.utf8) + [UInt8](repeating: 0, count: size - 8)
    }

    static func scan(_ bytes: [UInt8], upTo length: Int? = nil) -> FragmentBoundaries {
        var boundaries = FragmentBoundaries(.fragmentedMP4)
        let length = length ?? bytes.count
        boundaries.advance(length: Int64(length)) { offset in
            Array(bytes[Int(offset)..<min(Int(offset) + 16, length)])
        }
        return boundaries
    }

    @Test func aBoundaryIsTheStartOfEachMoofAfterWholeBoxes() {
        let file = Self.box("ftyp", 24) + Self.box("moov", 100) + Self.box("moof", 50) + Self.box("mdat", 400)
            + Self.box("moof", 50) + Self.box("mdat", 300)
        #expect(Self.scan(file).latest == 574)
        // The second fragment's moof is being written: everything before it is whole.
        #expect(Self.scan(file, upTo: 600).latest == 574)
        // Its header not even there yet: the first boundary is the latest sure one.
        #expect(Self.scan(file, upTo: 580).latest == 124)
        #expect(Self.scan(file, upTo: 570).latest == 124)
        // Header only: no fragment yet.
        #expect(Self.scan(file, upTo: 124).latest == 0)
    }

    @Test func scanningGoesOnFromWhereItStopped() {
        let file = Self.box("ftyp", 24) + Self.box("moof", 16) + Self.box("mdat", 40) + Self.box("moof", 16) + Self.box("mdat", 40)
        var boundaries = FragmentBoundaries(.fragmentedMP4)
        var reads = 0
        for length in [30, 60, 80, 136] {
            boundaries.advance(length: Int64(length)) { offset in
                reads += 1
                return Array(file[Int(offset)..<min(Int(offset) + 16, length)])
            }
        }
        #expect(boundaries.latest == 80)
        #expect(boundaries.scanned == 136)
        #expect(reads <= 9)
    }

    @Test func largeSizeBoxesAreRead() {
        // size 1: the 64-bit size follows the type.
        var mdat: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 32]
        mdat += [UInt8](repeating: 0, count: 16)
        let file = Self.box("ftyp", 16) + mdat + Self.box("moof", 16)
        #expect(Self.scan(file).latest == 48)
    }

    @Test func transportStreamCutsOnWholePackets() {
        var boundaries = FragmentBoundaries(.transportStream)
        boundaries.advance(length: 188 * 10 + 50) { _ in [] }
        #expect(boundaries.latest == 1880)
    }

    /// A live-written Matroska / WebM spool file is never rewritten: every byte written is final,
    /// so a part is cut as soon as 5 MiB gathered, wherever the muxer is.
    @Test func appendOnlyFilesCutAtTheirLength() {
        let mib: Int64 = 1 << 20
        var boundaries = FragmentBoundaries(.appendOnly)
        boundaries.advance(length: 5 * mib + 7) { _ in [] }
        #expect(boundaries.latest == 5 * mib + 7)
        #expect(PartCutter.nextPart(uploaded: 0, boundary: boundaries.latest, length: 5 * mib + 7, finished: false) == 0..<(5 * mib + 7))
        boundaries.advance(length: 3) { _ in [] }
        #expect(boundaries.latest == 5 * mib + 7, "a boundary never moves back")
    }

    @Test func partsAreAtLeastFiveMiBAndEndOnBoundaries() {
        let mib: Int64 = 1 << 20
        let cases: [(uploaded: Int64, boundary: Int64, length: Int64, finished: Bool, part: Range<Int64>?)] = [
            (0, 4 * mib, 6 * mib, false, nil),
            (0, 6 * mib, 7 * mib, false, 0..<(6 * mib)),
            (6 * mib, 6 * mib, 7 * mib, true, (6 * mib)..<(7 * mib)),
            (7 * mib, 7 * mib, 7 * mib, true, nil),
            // Finished: the last part may be small, and the first one too.
            (0, 0, 1000, true, 0..<1000),
        ]
        for test in cases {
            #expect(PartCutter.nextPart(uploaded: test.uploaded, boundary: test.boundary, length: test.length,
                                        finished: test.finished) == test.part)
        }
    }

    @Test func retriesDoubleUpToTheCap() {
        let schedule = RetrySchedule(firstSeconds: 0.5, capSeconds: 8)
        #expect((0...7).map { schedule.delay(afterFailures: $0) } == [0, 0.5, 1, 2, 4, 8, 8, 8])
    }

    @Test func theSpoolHoldsAtItsLimitAndReleasesBelowThreeQuarters() {
        var budget = SpoolBudget(limitBytes: 1000)
        budget.set("a", waitingBytes: 600)
        budget.set("b", waitingBytes: 300)
        #expect(!budget.mustHold(wasHolding: false))
        budget.set("b", waitingBytes: 400)
        #expect(budget.mustHold(wasHolding: false))
        budget.set("a", waitingBytes: 400)
        #expect(budget.mustHold(wasHolding: true))
        budget.set("a", waitingBytes: 0)
        #expect(budget.waitingBytes == 400)
        #expect(!budget.mustHold(wasHolding: true))
    }
}
