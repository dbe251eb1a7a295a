import Foundation
import TesseraComposition
import TesseraMedia
import TesseraTask

/// Live, the output's first frame: it waits for the first pictures of the inputs the layout draws
/// (bounded by `FirstPictureGate`), so the composite does not open on empty regions.
extension OutputClock {
    /// Live: waits until every input a region draws (every input, for a layout that follows the
    /// room) has its first picture, at most `FirstPictureGate.boundMicroseconds` after the task
    /// started, and returns the task clock's frame that output frame 0 shows: the first that
    /// shows those pictures. A stop or a cancel ends the wait at once.
    func waitForFirstPictures(instants: OutputInstants) throws -> Int64 {
        let gate = FirstPictureGate()
        while true {
            if control.isCancelled { throw TaskError.cancelled }
            let now = clock.nowMicroseconds
            let drawn = drawnInputs()
            var awaited = Set<Int>(), pictures: [Int: Int64] = [:]
            for (index, worker) in workers.enumerated() where drawn.contains(index) && worker.input.startAtMicroseconds <= 0 {
                let first = worker.firstPicture
                if let at = first.at { pictures[index] = at }
                if first.mayCome || first.at != nil { awaited.insert(index) }
            }
            if control.isStopRequested { awaited = [] }
            switch gate.decide(awaited: awaited, firstPictures: pictures, now: now, instants: instants) {
            case .start(let frame):
                let origin = instants.time(ofFrame: frame)
                let monotonic = Double(clock.startNanoseconds) / 1_000_000_000 + Double(origin) / 1_000_000
                let text = "tessera worker \(task.taskId): output frame 0 at CLOCK_MONOTONIC \(String(format: "%.6f", monotonic)) s, "
                    + "\(origin / 1000) ms after the clock zero (first pictures of \(pictures.count) of \(awaited.count) drawn inputs)"
                Self.logger.info("\(text)")
                return frame
            case .wait:
                clock.sleep(until: now + 5_000, unless: control.wake)
            }
        }
    }

    /// Inputs the current layout draws, by index (every input while a template follows the room:
    /// its regions appear with their inputs' pictures).
    private func drawnInputs() -> Set<Int> {
        guard let layout = layoutState.layout else { return [] }
        if follower.isFollowing { return Set(workers.indices) }
        var drawn = Set<Int>()
        for region in layout.regions { if case .input(let index) = region.content { drawn.insert(index) } }
        return drawn
    }
}
