import Foundation

/// Which outputs are HLS: a playlist (`.m3u8`) as a file path or an `http(s)` URL.
enum HLSOutputs {
    static func isPlaylist(_ url: String) -> Bool {
        let path = URLComponents(string: url)?.path ?? url
        return path.lowercased().hasSuffix(".m3u8")
    }
}

/// `outputs[]` whose URL ends in `.m3u8`, and their `hls` object.
extension ValidationContext {
    static let hlsSegmentSeconds: ClosedRange<Double> = 1...10
    static let hlsWindowSegments: ClosedRange<Int> = 2...100

    /// `spoolPlaylist`: an `s3://` playlist's spool file, written there and uploaded (the URL is
    /// then not a location of its own).
    mutating func resolveHLSOutput(_ spec: OutputSpec, at index: Int, context: OutputContext,
                                   spoolPlaylist: String? = nil) -> HLSSettings? {
        let base = FieldPath.element("outputs", index)
        let urlPath = base + ".url"
        let path = base + ".hls"
        let before = issues.count
        let hls = spec.hls ?? HLSSpec()
        // A rewind window is a sliding playlist: `dvrSeconds` alone asks for one.
        let defaultType: HLSSettings.Playlist = hls.dvrSeconds != nil ? .live : .event
        let playlistType = resolveEnum(hls.playlist, at: path + ".playlist", default: defaultType)
        let format = resolveEnum(hls.segmentFormat, at: path + ".segmentFormat", default: HLSSettings.SegmentFormat.fmp4)
        let seconds = hls.segmentSeconds ?? 2
        if !Self.hlsSegmentSeconds.contains(seconds) {
            issues.add(path + ".segmentSeconds", "must be from 1 to 10")
        } else if let video = context.video {
            // A segment starts on a keyframe only if the keyframe interval divides its length.
            let frames = seconds * Double(video.fps)
            if frames.rounded() != frames || Int(frames) % video.gopFrames != 0 {
                let gop = Double(video.gopFrames) / Double(video.fps)
                issues.add(path + ".segmentSeconds", "\(Self.seconds(seconds)) s is not a multiple of the keyframe interval "
                           + "(encoder.video.gopSeconds, \(Self.seconds(gop)) s): every segment must start on a keyframe")
            }
        }
        let window = hls.windowSegments ?? 6
        if hls.windowSegments != nil, hls.dvrSeconds != nil {
            issues.add(path + ".dvrSeconds", "give the window either as windowSegments or as dvrSeconds, not both")
        } else if hls.windowSegments != nil, playlistType == .event {
            issues.add(path + ".windowSegments", "an event playlist keeps every segment; windowSegments is for playlist live")
        } else if !Self.hlsWindowSegments.contains(window) {
            issues.add(path + ".windowSegments", "must be from 2 to 100")
        }
        let partSeconds = resolveHLSExtras(hls, at: path, segmentSeconds: seconds, playlistType: playlistType, format: format,
                                      hasVideo: context.video != nil)
        if context.mode == .relay {
            issues.add(urlPath, "an HLS output is cut on the task's own keyframes, so it needs mode mix")
        }
        guard let place = spoolPlaylist.map({ ($0, false) }) ?? playlistLocation(spec.url, at: urlPath) else {
            return nil
        }
        let (location, overHTTP) = place
        if overHTTP, hls.lowLatency != nil {
            // Parts are published by Tessera's own origin (files) or uploaded whole (s3://).
            issues.add(path + ".lowLatency", "LL-HLS is written to files (served by Tessera's origin) or s3://, not PUT to an http(s) origin")
        }
        guard issues.count == before, let playlistType, let format else { return nil }
        return HLSSettings(playlist: location, overHTTP: overHTTP, segmentSeconds: seconds, playlistType: playlistType,
                           windowSegments: window, segmentFormat: format, partSeconds: partSeconds,
                           dvrSeconds: hls.dvrSeconds, viewerKey: hls.viewerKey)
    }

    /// Where a playlist URL leads: a file under the output directory, or an `http(s)` origin.
    private mutating func playlistLocation(_ url: String, at urlPath: String) -> (String, Bool)? {
        switch TaskPathResolver.classify(url) {
        case .failure(let error):
            issues.add(urlPath, error.message)
            return nil
        case .success(.network(let scheme)) where scheme == "http" || scheme == "https":
            guard allowedHost(of: url, at: urlPath) != nil else { return nil }
            return (url, true)
        case .success(.network(let scheme)), .success(.refused(let scheme)):
            issues.add(urlPath, "an HLS playlist is a file path or an http(s) URL (segments sent with PUT), not \(scheme):")
            return nil
        case .success(.file(let given)):
            switch TaskPathResolver.resolve(given, root: options.outputDirectory, confine: options.confinePaths) {
            case .failure(let error):
                issues.add(urlPath, "\(error.message): \(url)")
                return nil
            case .success(let file):
                return (file, false)
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}
