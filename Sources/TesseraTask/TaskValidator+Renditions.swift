/// `encoder.video.renditions[]` and `outputs[].rendition`.
extension ValidationContext {
    /// Renditions beside the main size; each is a whole encode, so a few are plenty for a ladder.
    static let maxRenditions = 4

    /// Each rendition is no larger than the canvas it is scaled from, even-sized (4:2:0 chroma),
    /// in the main size's limits, and its frame rate divides the task's evenly into a GOP of whole
    /// frames, so every rendition's keyframes fall on the same composite frames.
    mutating func resolveRenditions(_ specs: [RenditionSpec]?, at path: String, width: Int, height: Int, fps: Int,
                                    gopFrames: Int) -> [Rendition]? {
        guard let specs else { return [] }
        let before = issues.count
        if specs.count > Self.maxRenditions {
            issues.add(path, "at most \(Self.maxRenditions) renditions beside the main size (got \(specs.count))")
            return nil
        }
        var renditions: [Rendition] = []
        for (index, spec) in specs.enumerated() {
            let at = FieldPath.element(path, index)
            checkRenditionSide(spec.width, at: at + ".width", range: 16...3840, canvas: width, name: "width")
            checkRenditionSide(spec.height, at: at + ".height", range: 16...2160, canvas: height, name: "height")
            if !(50...50_000).contains(spec.bitrateKbps) { issues.add(at + ".bitrateKbps", "must be from 50 to 50000") }
            let renditionFps = spec.fps ?? fps
            var step = 1
            if !(1...fps).contains(renditionFps) {
                issues.add(at + ".fps", "must be from 1 to the task's fps (encoder.video.fps, \(fps))")
            } else if fps % renditionFps != 0 {
                issues.add(at + ".fps", "must divide encoder.video.fps (\(fps)) evenly: a lower rate keeps every "
                           + "n-th composite frame (\(Self.divisors(of: fps).map(String.init).joinedAsChoice()))")
            } else {
                step = fps / renditionFps
                if gopFrames % step != 0 {
                    issues.add(at + ".fps", "\(renditionFps) fps cannot keep the keyframe interval (\(gopFrames) frames at \(fps) fps): "
                               + "every rendition must put its keyframes on the same frames; choose a gopSeconds that is a whole "
                               + "number of frames at \(renditionFps) fps")
                }
            }
            renditions.append(Rendition(width: spec.width, height: spec.height, bitrateKbps: spec.bitrateKbps,
                                        fps: renditionFps, frameStep: step))
        }
        return issues.count == before ? renditions : nil
    }

    private mutating func checkRenditionSide(_ value: Int, at path: String, range: ClosedRange<Int>, canvas: Int, name: String) {
        if !range.contains(value) || value % 2 != 0 {
            issues.add(path, "must be an even number from \(range.lowerBound) to \(range.upperBound)")
        } else if value > canvas {
            issues.add(path, "must not be larger than the canvas it is scaled from (encoder.video.\(name), \(canvas))")
        }
    }

    private static func divisors(of value: Int) -> [Int] { (1...value).filter { value % $0 == 0 } }

    /// `outputs[i].rendition`: an encode the task has, on an output that can take one.
    mutating func resolveRendition(_ spec: OutputSpec, kind: ResolvedOutput.Kind, at index: Int,
                                   context: OutputContext) -> Int {
        guard let rendition = spec.rendition else { return 0 }
        let path = FieldPath.element("outputs", index) + ".rendition"
        switch kind {
        case .rtp:
            issues.add(path, "an rtp output sends its own encode (constrained-baseline H.264 or VP8) at the main size; "
                       + "rendition is for rtmp, srt and file outputs")
            return 0
        case .hls:
            issues.add(path, "an HLS output publishes every rendition under its master playlist; "
                       + "rendition is for rtmp, srt and file outputs")
            return 0
        case .perInput:
            // Refused where the output is resolved (it keeps each input's own streams).
            return 0
        case .file(_, .y4m):
            if rendition != 0 { issues.add(path, "a .y4m output holds the raw composite at the main size; leave rendition out") }
            return 0
        case .rtmp, .srt, .file:
            break
        }
        if context.mode == .relay || !context.hasVideo {
            issues.add(path, "renditions are encodes of the composite: they need mode mix with encoder.video")
            return 0
        }
        // Video with issues of its own is reported there; the range is checked when it resolved.
        guard let video = context.video else { return rendition }
        if !(0...video.renditions.count).contains(rendition) {
            let choices = video.renditions.isEmpty ? "the task has no encoder.video.renditions, so only 0 (the main size)"
                : "0 (the main size) or 1–\(video.renditions.count) (encoder.video.renditions[0–\(video.renditions.count - 1)])"
            issues.add(path, "out of range: expected \(choices)")
        }
        return rendition
    }
}
