import Foundation
import TesseraCore

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

    init(_ output: ResolvedOutput, hasVideo: Bool) {
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
        case .rtp:
            // Never muxed: `RTPPublisher` packetizes and sends RTP itself (SRTP by libsrtp, RTCP
            // both ways), which FFmpeg's rtp muxer cannot.
            preconditionFailure("rtp outputs are sent by RTPPublisher, not a muxer")
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

    /// Opens the container and writes its header. Network destinations get 5 s to answer.
    func open(streams: [StreamDescription], startOffsetMicroseconds: Int64, interrupt: InterruptFlag) throws -> Muxer {
        if let folder { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        return try Muxer(url: url, formatName: formatName, streams: streams,
                         startOffsetMicroseconds: shiftsStart ? startOffsetMicroseconds : 0, options: options,
                         protocols: protocols, interrupt: interrupt, openTimeoutSeconds: isNetwork ? 5 : 10)
    }
}
