import TesseraMedia
import TesseraTask

/// A recorded show played back (`tessera mix` of a timeline manifest): the updates the live task
/// accepted, applied at their times through the path a `PATCH` takes, and each input absent in
/// its gaps as a live input that went silent is.
extension OutputClock {
    /// Offline: the update due at `time` (the first frame at or after its `atMs`) goes to
    /// `applyPendingUpdate`, exactly as a live update would.
    func submitScheduledUpdate(at time: Int64) {
        guard let due = schedule.due(at: time) else { return }
        let stills = Result { try PictureSource.decodeImages(of: due.layout) }
        control.submit(MixControl.PendingUpdate(task: due, stills: stills))
    }

    /// An input inside one of its gaps at `time` shows nothing: its picture is dropped, as when a
    /// live input stops sending (its region shows the placeholder, or with `onVideoLoss:
    /// lastFrame` the last picture).
    func hidingInputsInGaps(_ frames: [DecodedVideoFrame?], at time: Int64) -> [DecodedVideoFrame?] {
        var frames = frames
        for (index, worker) in workers.enumerated() where index < frames.count && worker.input.gaps.gap(at: time) != nil {
            worker.channel.dropCurrentPicture()
            frames[index] = nil
        }
        return frames
    }

    /// Mixes `count` samples from task-clock sample `position` into `planes`, each input silent
    /// inside its gaps (the block is split at their edges; the mixer ramps the gains).
    func mixWithGaps(count: Int, at position: Int64, into planes: [UnsafeMutablePointer<Float>]) {
        let segments = GapMixPlan.segments(start: position, count: count, sampleRate: task.audio.sampleRate,
                                           gains: task.audioMix.gains, gaps: workers.map(\.input.gaps))
        for segment in segments {
            let sources = zip(workers, segment.gains).map { (buffer: $0.channel.audio, gain: $1) }
            mixer.mix(sources: sources, count: segment.count, at: position + Int64(segment.offset),
                      into: planes.map { $0 + segment.offset })
        }
    }
}
