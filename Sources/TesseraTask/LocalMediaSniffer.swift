import Foundation

/// Refuses local files that FFmpeg would read as a list of other files or streams rather than as
/// media: an HLS playlist (`#EXTM3U`), an ffconcat script, a DASH manifest, an IMF composition
/// playlist, an SDP description. Each names further paths or URLs, which could reach files outside
/// the media root (`/etc/passwd`) or hosts the caller should not. FFmpeg picks a demuxer by the
/// file's content, not its name, so the check reads the first bytes whatever the extension is.
/// The demuxers behind these formats are also left off FFmpeg's format whitelist on every file
/// open (TesseraMedia), so this is the clear error up front and not the only guard.
public enum LocalMediaSniffer {
    /// How many bytes are read: FFmpeg's probes look at the start of the file too.
    static let headLength = 4096

    /// Why the file at `path` is not media Tessera opens, or nil (also when it cannot be read:
    /// the open fails later with its own error). Only regular files are read here: opening a FIFO
    /// or a device could block the server, so those are left to the worker or probe process.
    public static func refusal(atPath path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: headLength) else { return nil }
        return refusal(head: head)
    }

    /// The check over the file's first bytes.
    public static func refusal(head: Data) -> String? {
        var bytes = head[...]
        // A UTF-8 byte order mark and leading white space do not stop FFmpeg's text probes.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let text = String(decoding: bytes.prefix(headLength), as: UTF8.self)
        let lowered = text.lowercased()
        if text.hasPrefix("#EXTM3U") || text.hasPrefix("#EXT-X-") {
            return "is an HLS playlist, which names other files or URLs; give a media file or the playlist's http(s) URL"
        }
        if lowered.hasPrefix("ffconcat") {
            return "is an ffconcat script, which names other files; give a media file"
        }
        if lowered.hasPrefix("<?xml") || lowered.hasPrefix("<mpd") || lowered.hasPrefix("<compositionplaylist") {
            if lowered.contains("<mpd") || lowered.contains("compositionplaylist") {
                return "is a DASH or IMF manifest, which names other files or URLs; give a media file"
            }
        }
        if text.hasPrefix("v=0\n") || text.hasPrefix("v=0\r\n") {
            return "is an SDP description; give it as the input's rtp.sdp instead"
        }
        return nil
    }
}
