/// Where a task's timeline manifest goes: `{taskId}.timeline.json` in the folder of its first
/// per-participant output (for `s3://`: in that output's spool folder, and its twin object beside
/// the recordings' objects). Nil for a task without per-participant outputs: it has no manifest.
public struct TimelinePlace: Sendable, Equatable {
    /// The manifest on this machine (absolute).
    public var path: String
    /// The folder `path` lies in, ending in `/`: local file URLs are written relative to it.
    public var folder: String
    /// The object the manifest is uploaded to, last, for an `s3://` output.
    public var upload: ObjectLocation?
    /// The per-participant output's URL as the document gave it (its status lists the manifest's upload).
    public var outputURL: String

    public init?(task: ResolvedTask) {
        guard let output = task.outputs.first(where: { if case .perInput = $0.kind { return true } else { return false } }),
              case .perInput(let recording) = output.kind else { return nil }
        let name = TimelineManifest.fileName(taskId: task.taskId)
        outputURL = output.url
        folder = Self.folder(of: recording.template)
        path = folder + name
        upload = output.upload.map { location in
            ObjectLocation(bucket: location.bucket, key: Self.folder(of: location.key) + name, spoolDirectory: location.spoolDirectory)
        }
    }

    /// The place a later run of the same task writes to when this one's manifest exists already
    /// (a worker restarted, the task moved to another node): the next free name,
    /// `room42.timeline.1.json`, … (`RecordingFileNames`), so an earlier run's manifest, which
    /// lists that run's files on that run's clock, is never overwritten. `exists` is asked of paths.
    public func firstFree(exists: (String) -> Bool) -> TimelinePlace {
        guard exists(path) else { return self }
        let index = RecordingFileNames.nextIndex(after: 0, path: path, exists: exists)
        var next = self
        next.path = RecordingFileNames.name(path, index: index)
        next.upload = upload.map { location in
            ObjectLocation(bucket: location.bucket, key: RecordingFileNames.name(location.key, index: index),
                           spoolDirectory: location.spoolDirectory)
        }
        return next
    }

    /// `url` (a path, or an object's `s3://` URL, as the status lists files) as the manifest's
    /// inputs name it: relative to the manifest's folder (or its object's), so that the folder, or
    /// the objects downloaded into one, can be mixed wherever it lies; anything elsewhere as it is.
    public func manifestURL(_ url: String) -> String {
        if let upload {
            let prefix = "s3://\(upload.bucket)/" + Self.folder(of: upload.key)
            return url.hasPrefix(prefix) ? String(url.dropFirst(prefix.count)) : url
        }
        return url.hasPrefix("/") && url.hasPrefix(folder) ? String(url.dropFirst(folder.count)) : url
    }

    /// Everything up to and including the last `/` (empty for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }
}
