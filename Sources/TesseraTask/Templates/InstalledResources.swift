import Foundation

/// Finds a SwiftPM resource bundle (`Tessera_TARGET.resources`) next to the running executable.
///
/// SwiftPM's `Bundle.module` stops the process with a fatal error when its bundle is missing, and
/// it does not follow a symlinked binary (`/usr/local/bin/tessera` → `/opt/tessera/tessera`), so
/// callers look here first and use `Bundle.module` only as the last resort: a binary run from its
/// build directory, where SwiftPM's compiled-in build path finds the bundle.
public enum InstalledResources {
    /// The directory holding the bundle's files, or nil when no bundle sits beside the executable.
    public static func directory(ofBundle name: String) -> URL? {
        let candidates = [Bundle.main.bundleURL, Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()]
        guard let bundle = candidates.compactMap({ $0?.appendingPathComponent(name) })
            .first(where: { FileManager.default.fileExists(atPath: $0.path) }) else { return nil }
        // On Linux the bundle is a plain directory; on Darwin it has Contents/Resources.
        let nested = bundle.appendingPathComponent("Contents/Resources")
        return FileManager.default.fileExists(atPath: nested.path) ? nested : bundle
    }
}
