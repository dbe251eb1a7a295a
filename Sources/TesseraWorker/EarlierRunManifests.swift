import Foundation
import TesseraTask
import TesseraObjectStorage

/// The per-participant files of earlier runs of this task that died (a killed worker: its
/// manifest never got an end), read from the timeline manifests they left beside this run's
/// (`room42.timeline.json`, …, before this run's `.timeline.N.json`): cheap, local, and what the
/// status lists before this run's files. A run that ended properly is not one of them (the task
/// ended there; a manifest with an end is another task's of the same id, or a clean stop), nor is
/// anything on another node: its manifest is not here.
enum EarlierRunManifests {
    /// By per-participant output URL (as given), each earlier file as the status lists it; and
    /// the dead runs' manifests' paths.
    static func read(_ task: ResolvedTask, place: TimelinePlace?) -> (files: [String: [String]], manifests: [String]) {
        guard let place, let first = TimelinePlace(task: task) else { return ([:], []) }
        var listed: [String] = []
        var manifests: [String] = []
        for index in 0..<50 {
            let path = RecordingFileNames.name(first.path, index: index)
            guard path != place.path, let data = FileManager.default.contents(atPath: path) else { break }
            guard let manifest = try? JSONDecoder().decode(TimelineManifest.self, from: data),
                  manifest.timeline.taskId == task.taskId, manifest.timeline.endMs == nil else { continue }
            listed += manifest.timeline.files.map(\.url)
            manifests.append(path)
        }
        let templates = task.outputs.compactMap { output -> (url: String, template: String)? in
            guard case .perInput(let recording) = output.kind else { return nil }
            // Listed as the status lists them: a path, or the object's `s3://` URL.
            return (output.url, output.upload == nil ? recording.template : output.url)
        }
        return (PerInputKeyPattern.byOutput(listed, templates: templates), manifests)
    }
}
