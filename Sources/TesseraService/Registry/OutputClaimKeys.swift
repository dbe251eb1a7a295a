import TesseraTask

/// What each output of a task writes and no other running task may write at the same time
/// (issue: two tasks recording to one file both answered 201, one recording was lost): a file's
/// absolute path, an HLS playlist's (its segments and init sections are named after it), an
/// `s3://` object. Network outputs (RTMP, SRT, RTP) claim nothing: two tasks may push to one URL,
/// and the destination decides.
public enum OutputClaimKeys {
    /// One key per recording output, with the output's index (for the error's field path).
    public static func keys(of plan: ResolvedTask) -> [(index: Int, key: String)] {
        plan.outputs.enumerated().compactMap { index, output in key(of: output).map { (index, $0) } }
    }

    /// The key an output claims, nil for a network stream. An upload is known by its object, not
    /// by its node-local spool file, so two nodes writing one key collide.
    public static func key(of output: ResolvedOutput) -> String? {
        if let upload = output.upload { return "s3://\(upload.bucket)/\(upload.key)" }
        switch output.kind {
        case .file(let path, _): return "file:" + path
        // The template claims every input's files at once (two tasks recording `{input}` into one folder collide).
        case .perInput(let recording): return "file:" + recording.template
        case .hls(let settings): return settings.overHTTP ? settings.playlist : "file:" + settings.playlist
        case .rtmp, .srt, .rtp: return nil
        }
    }
}
