// One per-participant recording file as the recorder (TesseraWorker's per-input recording, owned
// by the 32-recorder slice) reports it to the show's timeline (`ShowTimeline`, 32-timeline).
//
// How it is used: the recorder reports a file once when it opens it (`endMicroseconds` nil; streams
// as far as known), and again when it finishes it (`endMicroseconds` set, streams final). The
// timeline keys files by `url`: a later report for the same `url` replaces the earlier one. Times
// are on the task clock (the output timeline in µs: the `pts` `InputWorker.place` gives the decoded
// picture the composite shows), so `offsetMicroseconds` is the task time of the file's first
// packet, which the file itself stamps as its start time. In the worker every report goes through
// `MixControl`'s file sink: `MixPipeline` hands it to `ShowTimelineRecorder.recorded` first (the
// manifest), then to the sink `WorkerMain` gave (`RecordedFileUploads`: `s3://` files are uploaded).

/// A per-participant recording file and where it sits on the task clock.
public struct RecordedFile: Codable, Sendable, Equatable {
    /// The input's id (`inputs[].id`).
    public var input: String
    /// The file as listed in the status `files`: an absolute path, or the object's `s3://` URL.
    public var url: String
    /// Task-clock time (µs) of the file's first packet.
    public var offsetMicroseconds: Int64
    /// Task-clock time (µs) just past the file's last packet; nil while it is being written.
    public var endMicroseconds: Int64?
    public var video: RecordedStream?
    public var audio: RecordedStream?

    public init(input: String, url: String, offsetMicroseconds: Int64, endMicroseconds: Int64? = nil,
                video: RecordedStream? = nil, audio: RecordedStream? = nil) {
        self.input = input
        self.url = url
        self.offsetMicroseconds = offsetMicroseconds
        self.endMicroseconds = endMicroseconds
        self.video = video
        self.audio = audio
    }
}

/// One stream of a recorded file, as received (remuxed, never re-encoded).
public struct RecordedStream: Codable, Sendable, Equatable {
    /// FFmpeg's codec name: `h264`, `vp8`, `vp9`, `opus`, `aac`.
    public var codec: String
    public var width: Int?
    public var height: Int?

    public init(codec: String, width: Int? = nil, height: Int? = nil) {
        self.codec = codec
        self.width = width
        self.height = height
    }
}
