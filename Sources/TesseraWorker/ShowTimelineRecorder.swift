import Foundation
import Logging
import Synchronization
import TesseraTask
import TesseraMedia

/// A live task's show, collected from the threads that see it into one `ShowTimeline`, and its
/// manifest (`{taskId}.timeline.json`, `TimelinePlace`) kept written: rewritten aside and renamed
/// whenever a file opens or finishes, an input comes or goes, or an update applies, and a last
/// time at the end, so a crash leaves a valid manifest of the show so far. The writes happen on a
/// thread of its own: the output and input threads only change the value under the `Mutex`.
///
/// Who calls what: the per-participant recorders `recorded` (their input's thread), the output
/// clock `compositeStarted`, `input(_:live:at:)` and `updateApplied` (the output thread),
/// `MixPipeline` `finish` once every input has stopped.
final class ShowTimelineRecorder: Sendable {
    let place: TimelinePlace
    private let clock: TaskClock
    private let timeline: Mutex<ShowTimeline>
    private let changed = ChangeSignal()
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private static let logger = Logger(label: "tessera.timeline")

    /// Nil for a task without a per-participant output, or not live.
    init?(task: ResolvedTask, clock: TaskClock) {
        guard task.pace == .realtime, let place = TimelinePlace(task: task) else { return nil }
        // A restarted run writes its own manifest beside the earlier run's, never over it.
        self.place = place.firstFree { FileManager.default.fileExists(atPath: $0) }
        self.clock = clock
        let startedAt = Date().timeIntervalSince1970 - Double(clock.nowMicroseconds) / 1_000_000
        timeline = Mutex(ShowTimeline(taskId: task.taskId, startedAt: startedAt, sections: task.sections ?? TaskSections(),
                                      inputs: Self.inputs(of: task)))
    }

    static func inputs(of task: ResolvedTask) -> [(id: String, silenceMicroseconds: Int64)] {
        task.inputs.map { ($0.id, $0.silenceMicroseconds) }
    }

    /// Starts the writer thread (the first manifest is written at once).
    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                write()
                changed.wait()
            }
            stopped.signal()
        }
        thread.name = "tessera-timeline"
        thread.start()
    }

    // MARK: Events (any thread)

    func recorded(_ file: RecordedFile) {
        if timeline.withLock({ $0.recorded(file) }) { changed.notify() }
    }

    func compositeStarted(at microseconds: Int64) {
        timeline.withLock { $0.compositeStarted(at: microseconds) }
        changed.notify()
    }

    func input(_ id: String, live: Bool, at microseconds: Int64) {
        if timeline.withLock({ $0.input(id, live: live, at: microseconds) }) { changed.notify() }
    }

    func updateApplied(_ task: ResolvedTask, at microseconds: Int64) {
        timeline.withLock { _ = $0.updateApplied(task.sections, inputs: Self.inputs(of: task), at: microseconds) }
        changed.notify()
    }

    /// The show is over: the writer thread ends and the last manifest is written here.
    func finish() {
        timeline.withLock { $0.ended(at: clock.nowMicroseconds) }
        stopping.store(true, ordering: .releasing)
        changed.notify()
        stopped.wait()
        write()
    }

    // MARK: Writing

    private func write() {
        let now = clock.nowMicroseconds
        let manifest = timeline.withLock { show in
            show.manifest(now: now, url: { [place] in place.manifestURL($0.url) },
                          bytes: { file in file.url.hasPrefix("/") ? Self.size(of: file.url) : nil })
        }
        do {
            try Self.replace(place.path, with: try manifest.encoded())
        } catch {
            Self.logger.error("tessera worker \(manifest.timeline.taskId): cannot write the timeline manifest \(place.path): \(error)")
        }
    }

    /// Writes `data` beside `path` and renames it over `path`: a reader sees the old or the new.
    static func replace(_ path: String, with data: Data) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let aside = folder + "/." + (path as NSString).lastPathComponent + ".writing"
        try data.write(to: URL(fileURLWithPath: aside))
        guard rename(aside, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: aside)
            throw MediaError("cannot rename \(aside) to \(path): \(reason)")
        }
    }

    private static func size(of path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }
}
