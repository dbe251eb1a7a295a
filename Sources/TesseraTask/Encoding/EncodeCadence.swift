/// Which composite frames each video encode takes, at which of its own timestamps, when a wished
/// keyframe may be forced, and on which of its frames the SEI of a composite frame goes.
///
/// A rendition at a lower rate takes every `frameStep`-th composite frame, its pts counted in its
/// own 1/fps. The ladder (the main H.264 and every rendition, when the task has renditions) keeps
/// its GOP boundaries together: each of its encodes takes its first frame on a frame every
/// rendition encodes (`VideoSettings.ladderFrameStep`), a keyframe is asked of all of them at
/// once, and one is forced only on such a frame, so HLS variants switch at segment boundaries.
/// RTP's own encodes (constrained baseline, VP8) take every frame and carry no SEI.
///
/// Pure: the encode pool asks it for each encode on each frame.
public struct EncodeCadence: Sendable, Equatable {
    public enum Frame: Sendable, Equatable {
        /// This encode does not take the frame.
        case skip
        /// Encode the frame with `pts` (the encode's 1/fps); a wished keyframe may be forced on it
        /// only when `keyframeAllowed`.
        case encode(pts: Int64, keyframeAllowed: Bool)
    }

    private let plan: EncodePlan
    /// The encodes asked for keyframes as one; empty without renditions.
    public let ladder: Set<VideoEncodeFormat>
    private let ladderFrameStep: Int64
    /// Ladder encodes that have taken their first frame.
    private var started = Set<VideoEncodeFormat>()

    public init(plan: EncodePlan) {
        self.plan = plan
        ladderFrameStep = Int64(plan.video?.ladderFrameStep ?? 1)
        if let video = plan.video, plan.hasRenditions {
            ladder = Set([.h264(video.profile)] + video.renditions.indices.map { .rendition($0 + 1) })
        } else {
            ladder = []
        }
    }

    /// The encodes a keyframe wish for `format` applies to: the whole ladder for one of its
    /// encodes (a keyframe out of cadence in one rendition would shift its GOPs against the
    /// others'), else `format` alone.
    public func keyframeGroup(of format: VideoEncodeFormat) -> Set<VideoEncodeFormat> {
        ladder.contains(format) ? ladder : [format]
    }

    /// Composite frames per frame of `format`: a rendition's `frameStep`, else 1.
    public func frameStep(of format: VideoEncodeFormat) -> Int64 {
        guard case .rendition(let index) = format, let video = plan.video, video.ladder.indices.contains(index) else { return 1 }
        return Int64(video.ladder[index].frameStep)
    }

    /// What `format` does with composite frame `frameIndex` (called once per encode and frame, in
    /// order: a ladder encode's first frame is remembered).
    public mutating func frame(_ frameIndex: Int64, of format: VideoEncodeFormat) -> Frame {
        let inLadder = ladder.contains(format)
        let onLadderFrame = frameIndex % ladderFrameStep == 0
        if inLadder, !started.contains(format) {
            guard onLadderFrame else { return .skip }
            started.insert(format)
        }
        let step = frameStep(of: format)
        guard frameIndex % step == 0 else { return .skip }
        // A ladder keyframe waits for a frame every rendition encodes, then lands on all.
        return .encode(pts: frameIndex / step, keyframeAllowed: !inLadder || onLadderFrame)
    }

    /// The frame of `format` (its pts) that carries the SEI of composite frame `frameIndex`: the
    /// same for the main encode, the rendition's next frame for one that skips it; nil for
    /// encodes that carry none (RTP's own).
    public func seiFrame(forComposite frameIndex: Int64, of format: VideoEncodeFormat) -> Int64? {
        guard plan.rendition(of: format) != nil else { return nil }
        let step = frameStep(of: format)
        return (frameIndex + step - 1) / step
    }

    /// Forgets the encodes that closed: one opened again starts the ladder's cadence anew.
    public mutating func keep(only formats: Set<VideoEncodeFormat>) {
        started.formIntersection(formats)
    }
}
