import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The output directory's free space against `--min-free-bytes`: below it the node takes no new
/// recording task and says so once (not at every check), and once more when space is back. A
/// full disk under a running recording is still the recording's own failure (`failed`, "No
/// space left on device"); this keeps new ones from starting into it.
public struct DiskSpaceWatch: Sendable, Equatable {
    public enum Change: Sendable, Equatable { case none, becameLow, recovered }

    public let minFreeBytes: Int64
    public private(set) var isLow = false
    public private(set) var lastFreeBytes: Int64?

    public init(minFreeBytes: Int64) { self.minFreeBytes = minFreeBytes }

    /// Records a reading; says whether it crossed the threshold either way.
    public mutating func observe(freeBytes: Int64) -> Change {
        lastFreeBytes = freeBytes
        let low = freeBytes < minFreeBytes
        defer { isLow = low }
        if low && !isLow { return .becameLow }
        if !low && isLow { return .recovered }
        return .none
    }
}

/// Reads a file system's free space (what an unprivileged writer may still use).
public enum FileSystemSpace {
    public static func freeBytes(atPath path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
