import TesseraComposition
import XCTest

final class OutputInstantsTests: XCTestCase {
    private let at30 = OutputInstants(fps: 30, toleranceMicroseconds: 1_000)

    func testFrameTimesRoundToNearestMicrosecond() {
        XCTAssertEqual(at30.time(ofFrame: 0), 0)
        XCTAssertEqual(at30.time(ofFrame: 1), 33_333)
        XCTAssertEqual(at30.time(ofFrame: 2), 66_667)
        XCTAssertEqual(at30.time(ofFrame: 30), 1_000_000)
    }

    /// A 60 fps input into a 30 fps output: the pictures on the output's instants are shown, the
    /// ones between them are not.
    func testSixtyIntoThirtyShowsEveryOtherPicture() {
        let duration: Int64 = 16_667
        var shown: [Int] = []
        for index in 0..<12 {
            let start = (Int64(index) * 1_000_000 + 30) / 60
            if at30.showsPicture(from: start, until: start + duration) { shown.append(index) }
        }
        XCTAssertEqual(shown, [0, 2, 4, 6, 8, 10])
    }

    /// Millisecond timestamps (FLV): frame 2 at 67 ms is still the picture of the 66.667 ms instant.
    func testMillisecondTimestampsWithinToleranceAreShown() {
        XCTAssertTrue(at30.showsPicture(from: 67_000, until: 100_000))
        XCTAssertFalse(at30.showsPicture(from: 17_000, until: 33_000))
        XCTAssertFalse(at30.showsPicture(from: 17_000, until: 34_000), "the 33.333 ms instant picks the next picture, at 34 ms")
        XCTAssertTrue(at30.showsPicture(from: 17_000, until: 35_000), "the next picture comes after 33.333 ms + 1 ms")
    }

    /// Slower inputs than the output: every picture holds at least one instant.
    func testSlowerInputShowsEveryPicture() {
        for index in 0..<30 {
            let start = Int64(index) * 66_667
            XCTAssertTrue(at30.showsPicture(from: start, until: start + 66_667), "picture \(index)")
        }
    }

    func testEmptyAndNegativeIntervals() {
        XCTAssertFalse(at30.showsPicture(from: 5_000, until: 5_000))
        XCTAssertFalse(at30.showsPicture(from: 5_000, until: 1_000))
        XCTAssertTrue(at30.showsPicture(from: -20_000, until: 1_001), "the first instant is at 0 (+1 ms tolerance)")
        XCTAssertFalse(at30.showsPicture(from: -20_000, until: 1_000), "a picture at 1 ms is already the one shown at 0")
        XCTAssertFalse(at30.showsPicture(from: -20_000, until: -1_500))
    }

    /// Against a brute-force scan of the instants, for odd rates and random intervals.
    func testAgreesWithBruteForce() {
        var generator = SystemRandomNumberGenerator()
        for fps in [1, 7, 24, 25, 29, 30, 50, 60] {
            let instants = OutputInstants(fps: fps, toleranceMicroseconds: 1_000)
            let times = (0..<400).map { instants.time(ofFrame: Int64($0)) }
            for _ in 0..<500 {
                let start = Int64.random(in: -50_000...3_000_000, using: &generator)
                let end = start + Int64.random(in: 1...120_000, using: &generator)
                let expected = times.contains { start <= $0 + 1_000 && $0 + 1_000 < end }
                XCTAssertEqual(instants.showsPicture(from: start, until: end), expected, "fps \(fps) [\(start), \(end))")
            }
        }
    }
}
