import Foundation

/// Names of the files a file output writes when its task is restarted: a restart (worker crash or
/// hang, node restart, move to another node) never overwrites a recording but continues in a new
/// file beside the first — `room42.mp4`, then `room42.1.mp4`, `room42.2.mp4`, …
public enum RecordingFileNames {
    /// The name of the `index`-th file of an output whose first file is `path` (index 0 is `path`
    /// itself). The index goes before the last extension of the last path component, so the
    /// container stays recognisable: `rec/room42.mp4` → `rec/room42.1.mp4`; `take` → `take.1`.
    public static func name(_ path: String, index: Int) -> String {
        guard index > 0 else { return path }
        let slash = path.lastIndex(of: "/")
        let fileStart = slash.map { path.index(after: $0) } ?? path.startIndex
        let fileName = path[fileStart...]
        // A leading dot is a hidden file's name, not an extension.
        if let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex {
            return String(path[..<dot]) + ".\(index)" + String(path[dot...])
        }
        return path + ".\(index)"
    }

    /// Which index `name` is of the output whose first file is `path`; nil if it is none of them.
    public static func index(of name: String, first path: String) -> Int? {
        if name == path { return 0 }
        for index in 1...10_000 where self.name(path, index: index) == name { return index }
        return nil
    }

    /// The file a restarted output continues in: the first index after `lastIndex` whose file
    /// does not exist yet (`exists` is asked of the resolved path), so nothing is overwritten.
    public static func nextIndex(after lastIndex: Int, path: String, exists: (String) -> Bool) -> Int {
        var index = lastIndex + 1
        while exists(name(path, index: index)), index < lastIndex + 10_000 { index += 1 }
        return index
    }
}
