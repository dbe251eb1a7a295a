/// `outputs[].hls.lowLatency`, `dvrSeconds` and `viewerKey`: LL-HLS parts, the rewind window by
/// duration, and the key viewers' URLs carry at Tessera's origin.
extension ValidationContext {
    static let hlsPartSeconds: ClosedRange<Double> = 0.1...2.0
    /// Up to a day of segments in a rewind window.
    static let hlsDVRSeconds: ClosedRange<Double> = 0...86_400
    static let hlsViewerKeyLength: ClosedRange<Int> = 16...64

    /// Adds an issue for each field out of its rules; returns the part length (nil: classic HLS).
    mutating func resolveHLSExtras(_ hls: HLSSpec, at path: String, segmentSeconds: Double,
                                   playlistType: HLSSettings.Playlist?, format: HLSSettings.SegmentFormat?,
                                   hasVideo: Bool) -> Double? {
        var part: Double?
        if let low = hls.lowLatency {
            let partPath = path + ".lowLatency.partSeconds"
            if let seconds = low.partSeconds {
                part = seconds
                if !Self.hlsPartSeconds.contains(seconds) {
                    issues.add(partPath, "must be from 0.1 to 2")
                } else if seconds > segmentSeconds / 2 + 1e-9 {
                    issues.add(partPath, "must be at most half of segmentSeconds (\(segmentSeconds)): a segment holds two parts or more")
                }
            } else {
                issues.add(partPath, "is required")
            }
            if format == .ts {
                issues.add(path + ".lowLatency", "LL-HLS parts are CMAF fragments: segmentFormat must be fmp4")
            }
            if !hasVideo {
                issues.add(path + ".lowLatency", "parts are cut on the video's frames: needs encoder.video")
            }
        }
        if let dvr = hls.dvrSeconds {
            if playlistType == .event {
                issues.add(path + ".dvrSeconds", "an event playlist keeps every segment; dvrSeconds is for playlist live")
            } else if !Self.hlsDVRSeconds.contains(dvr) || dvr < 2 * segmentSeconds - 1e-9 {
                issues.add(path + ".dvrSeconds", "must be at least two segments (\(2 * segmentSeconds) s) and at most 86400")
            }
        }
        if let key = hls.viewerKey, !Self.isViewerKey(key) {
            issues.add(path + ".viewerKey", "must be 16 to 64 characters of A-Z, a-z, 0-9, _ and -")
        }
        return part
    }

    /// 16–64 characters of `[A-Za-z0-9_-]`: safe in a URL path without escaping.
    static func isViewerKey(_ key: String) -> Bool {
        hlsViewerKeyLength.contains(key.utf8.count)
            && key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                                     || $0 == 0x5F || $0 == 0x2D }
    }
}
