/// Where a paused and resumed recording puts its packets: the time spent paused is taken out of
/// the timeline, so the file plays on from where it stopped with no hole.
///
/// The resume is placed by the video: its first packet (the keyframe the publisher waits for)
/// goes right after the last picture written before the pause, and every later packet of every
/// stream moves back by as much. The encoders' packets do not reach a publisher in timestamp
/// order across streams (x264 holds pictures back, so audio runs some tenths of a second ahead of
/// the video in the queue): placing the resume after the *latest* end of any stream would leave
/// that lead as a hole in both streams (0.37 s of video, 0.33 s of audio at the default latency).
/// Audio that would now overlap what was written before the pause is dropped, so the audio goes
/// on within one audio frame of where it stopped. An output without video is placed by its audio.
///
/// Pure: the publisher calls it for each packet it writes.
public struct PauseTimeline: Sendable, Equatable {
    /// Microseconds taken out of the timeline by pauses so far.
    public private(set) var pausedMicroseconds: Int64 = 0
    /// Per stream, the end (µs, on the shifted timeline) of what was written.
    private var writtenEnd: [Int64?]
    private let videoStream: Int?
    private var resuming = false

    /// A packet this much before its stream's written end still counts as following it (rounding).
    static let overlapToleranceMicroseconds: Int64 = 1_000

    public init(streams: Int, videoStream: Int?) {
        writtenEnd = Array(repeating: nil, count: streams)
        self.videoStream = videoStream
    }

    /// The output resumed: the next packet placed sets how much the pause takes out.
    public mutating func resume() { resuming = true }

    /// Places a packet of `stream` starting at `start` (µs, the encoders' timeline) and lasting
    /// `duration`: the amount to move it back by, or nil to drop it (it would overlap what its
    /// stream already wrote).
    public mutating func place(stream: Int, start: Int64, duration: Int64) -> Int64? {
        if resuming {
            resuming = false
            let anchor = videoStream.flatMap { writtenEnd[$0] } ?? writtenEnd.compactMap { $0 }.max()
            if let anchor { pausedMicroseconds = max(pausedMicroseconds, start - anchor) }
        }
        let shifted = start - pausedMicroseconds
        if let end = writtenEnd[stream], shifted < end - Self.overlapToleranceMicroseconds { return nil }
        // Pictures leave the encoder in decoding order: the end is the latest, not the last.
        writtenEnd[stream] = max(writtenEnd[stream] ?? Int64.min, shifted + max(duration, 0))
        return pausedMicroseconds
    }
}
