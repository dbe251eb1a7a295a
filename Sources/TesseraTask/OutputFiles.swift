import Foundation

/// Every file each file output of a task has written, and the plan's file paths for the next
/// run: a restarted task continues each recording in a new file beside the first
/// (`room42.mp4`, `room42.1.mp4`, …) and never overwrites one.
///
/// Files are named as the document names the output (`url`), so the status shows names the
/// caller recognises; the plan's absolute paths get the same index.
public struct OutputFiles: Sendable, Equatable {
    /// Output URL as given → its files, oldest first.
    public private(set) var byURL: [String: [String]]
    /// The outputs the running worker writes: their last file is open.
    private var open: Set<String> = []

    public init(_ byURL: [String: [String]] = [:]) { self.byURL = byURL }

    /// The plan a new worker runs. A file output that has written before continues in the next
    /// free name; one that never has starts at its own name, or at the next free name when that
    /// file exists: nothing recorded is overwritten. The existing file is listed as the task's own
    /// only when the task is resuming (after a node restart or a move, when its last files may not
    /// have been recorded yet); a new task lists only what it writes (`rec.1.mp4`).
    ///
    /// An HLS playlist on disk is continued by the task that wrote it (each run after a
    /// discontinuity, with its own initialization section), but never by another: a playlist in
    /// `foreign` (output URLs whose existing recording another task, or no known task, wrote)
    /// that exists moves to the next free name (`live1.1.m3u8`, its segments named after it).
    public mutating func beginRun(_ plan: ResolvedTask, resuming: Bool, foreign: Set<String> = [],
                           exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> ResolvedTask {
        open = []
        return continuing(plan, resuming: resuming, foreign: foreign, exists: exists)
    }

    /// An updated plan for the running worker: outputs it already writes keep their current file;
    /// new ones start at their own name, or, when they wrote before (removed, then added again),
    /// in the next free name.
    /// A playlist in `foreign` that exists moves to the next free name, as in `beginRun`.
    public mutating func apply(_ plan: ResolvedTask, foreign: Set<String> = [],
                        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> ResolvedTask {
        continuing(plan, resuming: false, foreign: foreign, exists: exists)
    }

    private mutating func continuing(_ plan: ResolvedTask, resuming: Bool, foreign: Set<String>,
                                     exists: (String) -> Bool) -> ResolvedTask {
        var plan = plan
        var nowOpen: Set<String> = []
        for index in plan.outputs.indices {
            if case .hls(var settings) = plan.outputs[index].kind, !settings.overHTTP, plan.outputs[index].upload == nil {
                let url = plan.outputs[index].url
                if let current = byURL[url]?.last, let number = RecordingFileNames.index(of: current, first: url) {
                    settings.playlist = RecordingFileNames.name(settings.playlist, index: number)
                } else if foreign.contains(url), exists(settings.playlist) {
                    let next = RecordingFileNames.nextIndex(after: 0, path: settings.playlist, exists: exists)
                    settings.playlist = RecordingFileNames.name(settings.playlist, index: next)
                    byURL[url] = [RecordingFileNames.name(url, index: next)]
                }
                plan.outputs[index].kind = .hls(settings)
                continue
            }
            guard case .file(let path, let container) = plan.outputs[index].kind else { continue }
            let url = plan.outputs[index].url
            nowOpen.insert(url)
            if open.contains(url), let current = byURL[url]?.last {
                let number = RecordingFileNames.index(of: current, first: url) ?? 0
                plan.outputs[index].kind = .file(path: RecordingFileNames.name(path, index: number), container: container)
                continue
            }
            var files = byURL[url] ?? []
            let last: Int? = files.last.map { RecordingFileNames.index(of: $0, first: url) ?? files.count - 1 }
                ?? (exists(path) ? 0 : nil)
            let next = last.map { RecordingFileNames.nextIndex(after: $0, path: path, exists: exists) } ?? 0
            if files.isEmpty, next > 0, resuming { files.append(url) }
            files.append(RecordingFileNames.name(url, index: next))
            byURL[url] = files
            plan.outputs[index].kind = .file(path: RecordingFileNames.name(path, index: next), container: container)
        }
        open = nowOpen
        return plan
    }

    /// The files of an output, for its status; nil for a network output.
    public func files(of url: String) -> [String]? { byURL[url] }
}
