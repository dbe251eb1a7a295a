import Foundation

/// Reads a file that a muxer is still writing: its length now and bytes at an offset. A short
/// read at the end is normal (the muxer is mid-write); callers only trust whole boxes.
enum SpoolFile {
    static func length(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func read(_ path: String, offset: Int64, count: Int) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            return nil
        }
    }
}
