/// `outputs[].thumbnails`: read with the output, resolved against the canvas.
extension TaskDocumentReader {
    static func readThumbnails(_ object: JSONObjectReader, issues: inout IssueList) -> ThumbnailSpec {
        var object = object
        let spec = ThumbnailSpec(intervalSeconds: object.double("intervalSeconds", issues: &issues),
                                 width: object.int("width", issues: &issues))
        object.reportUnknownFields(issues: &issues)
        return spec
    }
}

extension ValidationContext {
    /// The output with its `thumbnails` resolved (see `resolvedOutputBeforeThumbnails`).
    mutating func resolvedOutput(_ spec: OutputSpec, kind: ResolvedOutput.Kind, at index: Int,
                                 mode: TaskMode?, context: OutputContext) -> ResolvedOutput {
        var output = resolvedOutputBeforeThumbnails(spec, kind: kind, at: index, mode: mode, context: context)
        if let thumbnails = spec.thumbnails {
            output.thumbnails = resolveThumbnails(thumbnails, kind: kind, at: index, mode: mode, context: context)
        }
        return output
    }

    /// Thumbnails are drawn from the composite and written beside a recording: HLS written to
    /// files (or a spool) and file outputs, in a mix with video.
    private mutating func resolveThumbnails(_ spec: ThumbnailSpec, kind: ResolvedOutput.Kind, at index: Int,
                                            mode: TaskMode?, context: OutputContext) -> ThumbnailSettings? {
        let path = FieldPath.element("outputs", index) + ".thumbnails"
        switch kind {
        case .rtmp, .srt, .rtp, .perInput:
            issues.add(path, "only recordings of the composite (HLS, files) take thumbnails")
            return nil
        case .hls(let hls) where hls.overHTTP:
            issues.add(path, "thumbnails are written beside the playlist: an HLS output sent with PUT cannot take them")
            return nil
        case .file, .hls:
            break
        }
        guard context.hasVideo, mode != .relay else {
            issues.add(path, "thumbnails are drawn from the composite, so they need mode mix with encoder.video")
            return nil
        }
        let before = issues.count
        let interval = spec.intervalSeconds ?? ThumbnailSettings.defaultIntervalSeconds
        if !ThumbnailSettings.intervalRange.contains(interval) || !interval.isFinite {
            issues.add(path + ".intervalSeconds", "must be from 1 to 600")
        }
        guard let video = context.video else { return nil }
        let width = spec.width ?? min(ThumbnailSettings.defaultWidth, video.width / 2 * 2)
        if !ThumbnailSettings.widthRange.contains(width) || width % 2 != 0 {
            issues.add(path + ".width", "must be an even number from 32 to 1920 (got \(width))")
        } else if width > video.width {
            issues.add(path + ".width", "must not be wider than the canvas (encoder.video.width \(video.width), got \(width))")
        }
        guard issues.count == before else { return nil }
        return ThumbnailSettings(intervalSeconds: interval, width: width, canvasWidth: video.width, canvasHeight: video.height)
    }
}
