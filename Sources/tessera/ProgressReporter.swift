import Foundation
import TesseraTask
import TesseraWorker

/// Shows a run's progress: a bar with percent, speed (multiple of real time) and ETA on a
/// terminal, or a plain line every few seconds otherwise (logs, CI).
final class ProgressReporter {
    private let interactive: Bool
    private let started = MonotonicClock.seconds
    private var lastPlainLine: Double = 0
    private var drewBar = false

    init(interactive: Bool) { self.interactive = interactive }

    func update(_ progress: MixPipeline.Progress) {
        let elapsed = max(MonotonicClock.seconds - started, 0.001)
        let speed = progress.seconds / elapsed
        var fraction: Double? = nil
        var eta: Double? = nil
        if let expected = progress.expectedSeconds, expected > 0 {
            fraction = min(1, progress.seconds / expected)
            if speed > 0 { eta = max(0, (expected - progress.seconds) / speed) }
        }
        if interactive {
            let width = 30
            let filled = Int((fraction ?? 0) * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let percent = fraction.map { String(format: "%3.0f%%", $0 * 100) } ?? "  ?%"
            let etaText = eta.map { String(format: "ETA %4.0fs", $0) } ?? "ETA    ?"
            StandardError.write(String(format: "\r[%@] %@ %7.1fs  %5.2fx  %@ ", bar, percent, progress.seconds, speed, etaText))
            drewBar = true
        } else if MonotonicClock.seconds - lastPlainLine >= 5 {
            lastPlainLine = MonotonicClock.seconds
            let percent = fraction.map { String(format: " (%.0f%%)", $0 * 100) } ?? ""
            StandardError.line(String(format: "progress: %.1f s%@, %lld frames, %.2fx real time", progress.seconds, percent,
                                      progress.frames, speed))
        }
    }

    func finish() {
        if drewBar { StandardError.write("\n") }
        drewBar = false
    }
}
