import Foundation

/// An HLS output of a task with renditions: one media playlist per rendition beside a master
/// playlist at the output's own URL that lists them all.
///
/// `room.m3u8` is the master; rendition N is `room_rN.m3u8` with its segments `room_rN_00000.m4s`
/// (and `room_rN_init.mp4`). Every variant carries the one AAC encode muxed in beside its video
/// (no separate audio group): any player plays any variant alone, and switching keeps the sound.
public struct HLSLadderPlan: Sendable, Equatable {
    /// The output's settings; its playlist is the master's location.
    public let output: HLSSettings
    /// Each rendition's media playlist, in ladder order (index 0 the main size).
    public let variants: [HLSSettings]

    public init(_ output: HLSSettings, renditions: Int) {
        self.output = output
        variants = (0..<renditions).map { output.variant($0) }
    }

    /// Headroom of `BANDWIDTH` (a peak) over the encoders' target rates: x264's VBV lets a
    /// segment run over its average, and FFmpeg's own master playlists add the same tenth.
    static let peakHeadroom = 1.1

    /// The master playlist: one `#EXT-X-STREAM-INF` per rendition with `BANDWIDTH` (peak, bits/s),
    /// `AVERAGE-BANDWIDTH`, `RESOLUTION`, `FRAME-RATE` and `CODECS`, the largest first (where a
    /// player without a bandwidth estimate starts). `codecs[i]` is rendition i's H.264 `avc1.…`;
    /// without it `CODECS` is left out rather than listing the audio alone (which would announce
    /// an audio-only variant).
    public func masterPlaylist(video: VideoSettings, audio: AudioSettings, codecs: [String?]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(output.segmentFormat == .fmp4 ? 7 : 3)", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let ladder = video.ladder
        let order = ladder.indices.sorted { (ladder[$0].width * ladder[$0].height, ladder[$0].bitrateKbps, -$0)
                                            > (ladder[$1].width * ladder[$1].height, ladder[$1].bitrateKbps, -$1) }
        for index in order {
            let rendition = ladder[index]
            let average = (rendition.bitrateKbps + audio.bitrateKbps) * 1000
            let peak = Int((Double(average) * Self.peakHeadroom).rounded())
            var attributes = "BANDWIDTH=\(peak),AVERAGE-BANDWIDTH=\(average),RESOLUTION=\(rendition.width)x\(rendition.height),"
                + "FRAME-RATE=\(String(format: "%.3f", Double(rendition.fps)))"
            if codecs.indices.contains(index), let codec = codecs[index] { attributes += ",CODECS=\"\(codec),\(HLSCodecs.aacLC)\"" }
            lines.append("#EXT-X-STREAM-INF:" + attributes)
            lines.append((variants[index].playlist as NSString).lastPathComponent)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension HLSSettings {
    /// Rendition `index`'s media playlist of this output: `room_r1.m3u8` beside `room.m3u8`,
    /// everything else (segment length, window, format) the output's own.
    public func variant(_ index: Int) -> HLSSettings {
        var settings = self
        settings.playlist = stem + "_r\(index).m3u8"
        return settings
    }
}
