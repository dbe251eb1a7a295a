import Foundation
import TesseraTask

/// How each kind of output is written — its container, the protocols it may use, muxer options and
/// whether the encoders' start offset applies — in one table that offline outputs (`OutputSet`),
/// live publishers and relays all open through.
struct OutputTarget {
    /// What FFmpeg opens: the URL, or a file output's resolved path.
    let url: String
    let formatName: String
    let protocols: String
    let options: [String: String]
    /// Whether timestamps are shifted by the AAC priming (`OutputSet.startOffsetMicroseconds`):
    /// every container but MP4, whose edit list says it instead.
    let shiftsStart: Bool
    /// A network destination may come back after a failure; a file does not.
    let isNetwork: Bool
    /// A folder a file output needs (`recordings/day1/room.mp4`), made before opening.
    let folder: String?
    /// An HLS output's settings: each open is a run with its own init segment (`HLSPlaylistRewriter`).
    let hls: HLSSettings?

    init(_ output: ResolvedOutput, hasVideo: Bool) {
        if case .hls(let settings) = output.kind { hls = settings } else { hls = nil }
        switch output.kind {
        case .rtmp:
            url = output.url
            (formatName, protocols, shiftsStart, isNetwork, folder) = ("flv", "rtmp,rtmps,tcp,tls", true, true, nil)
            // A stream has no end to go back to for its duration and size.
            options = ["flvflags": "no_duration_filesize"]
        case .srt:
            url = output.url
            (formatName, protocols, shiftsStart, isNetwork, folder) = ("mpegts", "srt,udp", true, true, nil)
            options = [:]
        case .hls(let hls):
            url = hls.playlist
            (formatName, protocols, shiftsStart, isNetwork) = ("hls", hls.overHTTP ? "http,https,tcp,tls" : "file", true, hls.overHTTP)
            let folder = (hls.playlist as NSString).deletingLastPathComponent
            self.folder = hls.overHTTP || folder.isEmpty ? nil : folder
            options = Self.hlsOptions(hls)
        case .rtp:
            // Never muxed: `RTPPublisher` packetizes and sends RTP itself (SRTP by libsrtp, RTCP
            // both ways), which FFmpeg's rtp muxer cannot.
            preconditionFailure("rtp outputs are sent by RTPPublisher, not a muxer")
        case .perInput:
            preconditionFailure("{input} outputs remux each input's own packets; they take no encode")
        case .file(let path, let container):
            url = path
            let folder = (path as NSString).deletingLastPathComponent
            (formatName, protocols, shiftsStart, isNetwork) = (container.muxerName ?? "mp4", "file", container != .mp4, false)
            self.folder = folder.isEmpty ? nil : folder
            options = Self.fileOptions(container, hasVideo: hasVideo)
        }
    }

    /// Fragmented MP4 so that a crash leaves a playable file up to the last fragment. Audio-only
    /// files cut a fragment each second (every AAC frame is a keyframe). Every file is flushed to
    /// the kernel as it is written (`flush_packets`): otherwise FFmpeg keeps up to 256 KiB in its
    /// buffer, and a killed worker (`SIGKILL`, OOM) would lose seconds that were already muxed.
    static func fileOptions(_ container: Container, hasVideo: Bool) -> [String: String] {
        switch container {
        case .mp4:
            return hasVideo
                ? ["movflags": "frag_keyframe+empty_moov+delay_moov+default_base_moof", "flush_packets": "1"]
                : ["movflags": "empty_moov+default_base_moof", "frag_duration": "1000000", "flush_packets": "1"]
        default:
            return ["flush_packets": "1"]
        }
    }

    /// FFmpeg's HLS muxer, told to keep the promises of an HLS output: segments cut at the
    /// task's keyframes every `segmentSeconds`; the playlist replaced whole (written aside, then
    /// renamed; over HTTP sent after the segment it lists); a `live` window deleting what falls
    /// out of it; and a restarted task (crash, move) continuing the same playlist after a
    /// discontinuity, its segment numbers going on from the last one listed, so none is
    /// overwritten. The trailer writes `#EXT-X-ENDLIST`: a stopped task leaves a complete VOD.
    ///
    /// `run`: what this open found (`HLSRunPlaylist`): a playlist with earlier runs' segments is
    /// continued after a discontinuity, and this run writes its own init segment; without it, a
    /// first run (`room_init.mp4`).
    static func hlsOptions(_ hls: HLSSettings, run: HLSRunPlaylist? = nil) -> [String: String] {
        let fileName = (hls.stem as NSString).lastPathComponent
        let segmentExtension = hls.segmentFormat == .fmp4 ? "m4s" : "ts"
        var flags = ["program_date_time", "independent_segments"]
        // FFmpeg marks the run boundary itself; `HLSPlaylistRewriter` puts each run's
        // `#EXT-X-MAP` after it and drops FFmpeg's marks before the first segment.
        if run?.continues == true { flags.append("append_list") }
        if !hls.overHTTP { flags.append("temp_file") }
        var options = [
            "hls_time": String(hls.segmentSeconds),
            "hls_segment_type": hls.segmentFormat == .fmp4 ? "fmp4" : "mpegts",
            "hls_segment_filename": "\(hls.stem)_%05d.\(segmentExtension)",
            "hls_list_size": hls.playlistType == .live ? String(hls.windowSegmentCount) : "0",
        ]
        if hls.segmentFormat == .fmp4 { options["hls_fmp4_init_filename"] = run?.initName ?? "\(fileName)_init.mp4" }
        if hls.playlistType == .event {
            options["hls_playlist_type"] = "event"
        } else {
            flags.append("delete_segments")
        }
        if hls.overHTTP { options["method"] = "PUT" }
        options["hls_flags"] = flags.joined(separator: "+")
        return options
    }

    /// Opens the container and writes its header. Network destinations get 5 s to answer and 2 s
    /// to close; a refusal is told in plain words (see `OutputFault.openFailure`).
    func open(streams: [StreamDescription], startOffsetMicroseconds: Int64, interrupt: InterruptFlag) throws -> Muxer {
        if let folder { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let openTimeout: Double = isNetwork ? 5 : 10
        _ = RTMPServerMessage.take()
        // Each open of an HLS output is a run: the playlist as earlier runs left it decides this
        // run's init segment and whether FFmpeg appends.
        let rewriter = hls.map { HLSPlaylistRewriter($0, interrupt: interrupt) }
        let options = rewriter.map { self.options.merging(Self.hlsOptions($0.settings, run: $0.run)) { $1 } } ?? self.options
        do {
            return try Muxer(url: url, formatName: formatName, streams: streams,
                             startOffsetMicroseconds: shiftsStart ? startOffsetMicroseconds : 0, options: options,
                             protocols: protocols, interrupt: interrupt, openTimeoutSeconds: openTimeout,
                             closeTimeoutSeconds: isNetwork ? Self.closeTimeoutSeconds : nil, attachment: rewriter)
        } catch let error as MediaError where isNetwork && !interrupt.isCancelled {
            let words = OutputFault.openFailure(kind: formatName == "flv" ? .rtmp : .other, code: error.code,
                                                serverMessage: RTMPServerMessage.take(), text: "\(error)",
                                                timeoutSeconds: openTimeout)
            throw MediaError(words)
        }
    }

    /// How long a network output's close may take: a last flush to a peer that stopped reading
    /// is given up after it.
    static let closeTimeoutSeconds = 2.0
}
