import CFFmpeg

/// The demuxers a local file may be read with: every one this FFmpeg has except those that read
/// a list of further files or URLs, or open sockets, instead of media. FFmpeg picks a demuxer by
/// probing the file's content, so an `.mp4` that is really an HLS playlist naming `/etc/passwd`
/// would otherwise be followed, through the `file` protocol that a file open must allow. Given as
/// `format_whitelist` on every open that allows `file`; the validator's content check
/// (`LocalMediaSniffer`) refuses such files earlier with a clear message.
enum LocalFileFormats {
    /// Playlists and manifests (hls, concat, dash, imf, webm_dash_manifest) and session
    /// descriptions that bind or dial network ports (sdp, rtsp, rtp, sap).
    static let refused: Set<String> = [
        "hls", "applehttp", "concat", "dash", "imf", "webm_dash_manifest", "sdp", "rtsp", "rtp", "sap",
    ]

    /// Comma-separated names, for `format_whitelist`. A demuxer with several names
    /// (`mov,mp4,m4a,…`) is left out when any of them is refused.
    static let whitelist: String = {
        var names: [String] = []
        var opaque: UnsafeMutableRawPointer?
        while let format = av_demuxer_iterate(&opaque) {
            let name = String(cString: format.pointee.name)
            let aliases = name.split(separator: ",").map(String.init)
            if aliases.contains(where: refused.contains) { continue }
            names.append(name)
        }
        return names.joined(separator: ",")
    }()

    /// Whether an open with this protocol whitelist can read local files.
    static func applies(toProtocols protocols: String) -> Bool {
        protocols.split(separator: ",").contains { $0 == "file" }
    }
}
