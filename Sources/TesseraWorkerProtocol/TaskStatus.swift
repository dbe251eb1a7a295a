import Foundation
import TesseraComposition
import TesseraRTP
import TesseraTask

/// The status document of SPEC §3, as `GET /v1/tasks/{taskId}` returns it. Output URLs are
/// always redacted (stream key and query hidden).
public struct TaskStatus: Codable, Sendable, Equatable {
    public var taskId: String
    public var state: TaskState
    public var reason: String?
    /// ISO 8601, UTC.
    public var startedAt: String
    public var uptimeSeconds: Double
    /// Output frames encoded so far (audio frames for an audio-only task).
    public var frames: Int64
    /// Measured output frame rate over the last few seconds.
    public var fps: Double
    /// Measured encoded bitrate (video + audio) over the last few seconds.
    public var bitrateKbps: Double
    /// Output frames that left later than their wall-clock time (pace `realtime`).
    public var lateFrames: Int64
    /// Last applied update `sequence`, if any.
    public var sequence: Int64?
    /// The worker process running this task, while one does (for operators).
    public var workerPid: Int32?
    /// How many times the task's worker crashed or hung and was started again.
    public var workerRestarts: Int?
    /// The node that runs the task (SPEC §6).
    public var node: String?
    public var inputs: [InputStatus]
    public var outputs: [OutputStatus]
    /// The encodes the task runs, each once however many outputs take it: `h264-high` (or the
    /// task's profile) and `aac` for RTMP, SRT, files and HLS, one more per rendition an output
    /// takes (`h264-high-r2-640x360`), `h264-baseline` or `vp8` and `opus` for RTP outputs.
    public var encodes: [String]?
    /// CPU seconds the task's worker processes used so far (every run of the task added up):
    /// what the task costs.
    public var cpuSeconds: Double?
    /// Core-seconds spent per minute of output produced (`cpuSeconds` / output minutes).
    public var cpuSecondsPerOutputMinute: Double?

    public init(taskId: String, state: TaskState, reason: String? = nil, startedAt: String, uptimeSeconds: Double = 0,
                frames: Int64 = 0, fps: Double = 0, bitrateKbps: Double = 0, lateFrames: Int64 = 0,
                sequence: Int64? = nil, inputs: [InputStatus] = [], outputs: [OutputStatus] = []) {
        self.taskId = taskId; self.state = state; self.reason = reason; self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds; self.frames = frames; self.fps = fps; self.bitrateKbps = bitrateKbps
        self.lateFrames = lateFrames; self.sequence = sequence; self.inputs = inputs; self.outputs = outputs
        workerPid = nil
    }
}

/// A task's life; it only moves forward: starting → running → stopping → stopped, or failed.
public enum TaskState: String, Codable, Sendable, Equatable, CaseIterable {
    case starting, running, stopping, stopped, failed

    public var isFinal: Bool { self == .stopped || self == .failed }
}

public struct InputStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable, Equatable, CaseIterable { case waiting, live, ended, failed }
    public var id: String
    public var state: State
    /// Pictures (or, audio-only, audio frames) received from this input.
    public var frames: Int64
    /// Pictures or audio the input lost: decode errors, dropped packets, stalls.
    public var drops: Int64
    public var lastError: String?
    /// Ports and SDP of an input whose RTP ports the service allocated.
    public var rtp: RTPStatus?
    /// Packet counters of an RTP input (received, lost, reordered, late, malformed, sender restarts).
    public var packets: PacketCounters?
    /// The RTCP an RTP input sent its senders: reports, keyframe requests (PLI, FIR), NACKs.
    public var rtcp: RTCPReceiver.Counters?
    /// An RTP input's video and audio: `no packets`, `waiting for keyframe` (video arrives but
    /// cannot be drawn yet) or `live` (drawn / heard). Absent for a medium its SDP does not have.
    public var videoState: RTPMediumState?
    public var audioState: RTPMediumState?
    /// An RTP input: true once its ports are bound and packets sent to them are received (a
    /// `POST` answers only then, up to a few seconds); false while they are not.
    public var ready: Bool?
    /// Clockwise degrees (0, 90, 180, 270) the input's newest picture is turned by to be shown
    /// upright (display matrix of a file, CVO of an RTP sender); nil before its first picture.
    public var rotation: Int?
    /// True when that picture is also mirrored left to right (before the turn); absent otherwise.
    public var flip: Bool?
    /// 0–100 from the RMS of the input's last 300 ms of audio as mixed (after its volume); absent
    /// for relay tasks and before the mix started.
    public var audioLevel: Int?
    /// True while `audioLevel` is above the speaking threshold (with hysteresis).
    public var speaking: Bool?
    /// The largest size the current layout draws this input at (`{"width", "height"}`): an SFU
    /// forwards the smallest layer that fills it. The regions' sizes before the first picture;
    /// absent when no region shows the input.
    public var drawSize: PixelSize?

    public init(id: String, state: State, frames: Int64 = 0, drops: Int64 = 0, lastError: String? = nil, rtp: RTPStatus? = nil,
                packets: PacketCounters? = nil, rotation: Int? = nil, flip: Bool? = nil, drawSize: PixelSize? = nil) {
        self.id = id; self.state = state; self.frames = frames; self.drops = drops; self.lastError = lastError; self.rtp = rtp
        self.packets = packets; self.rotation = rotation; self.flip = flip; self.drawSize = drawSize
    }

    /// This status with the input's audio level (unchanged when there is none).
    public func withAudioLevel(_ level: AudioLevel?) -> InputStatus {
        guard let level else { return self }
        var copy = self
        copy.audioLevel = level.level
        copy.speaking = level.speaking
        return copy
    }
}

public struct RTPStatus: Codable, Sendable, Equatable {
    public var videoPort: Int?
    public var audioPort: Int?
    /// The SDP an SFU should send to.
    public var sdp: String
    public init(videoPort: Int?, audioPort: Int?, sdp: String) { self.videoPort = videoPort; self.audioPort = audioPort; self.sdp = sdp }
}

public struct OutputStatus: Codable, Sendable, Equatable {
    /// `paused`: a recording on hold (`outputs[].paused`). `finished`: ended properly with its
    /// task (a final state, as `failed` is).
    public enum State: String, Codable, Sendable, Equatable, CaseIterable { case connecting, live, reconnecting, failed, paused, finished }
    /// Redacted: stream key and query hidden.
    public var url: String
    public var state: State
    public var bytes: Int64
    public var reconnects: Int64
    public var lastError: String?
    /// A file output's files, oldest first: a restarted task continues in a new file beside the
    /// first (`room42.mp4`, `room42.1.mp4`, …). nil for network outputs.
    public var files: [String]?
    /// Per-participant outputs (`{input}`): the inputs whose recording failed (a codec the
    /// container cannot hold, a write error), each named with its reason in `lastError`.
    public var failedInputs: [String]?
    /// RTP outputs: the SDP describing exactly what is sent (codecs, payload types, SSRCs,
    /// ports, keys), ready to hand to the SFU.
    public var sdp: String?
    /// RTP outputs: packets sent, sender reports, and the receiver's reports and keyframe requests.
    public var rtp: RTPOutputStatus?
    /// `s3://` outputs: each file (or HLS playlist) and how its upload goes, oldest first.
    public var uploads: [ObjectUploadStatus]?
    /// HLS outputs written here: the playlist's path on the task's origin,
    /// `/v1/tasks/{taskId}/hls/{viewerKey}/room.m3u8`, which viewers fetch without the API token.
    public var playbackPath: String?

    public init(url: String, state: State, bytes: Int64 = 0, reconnects: Int64 = 0, lastError: String? = nil) {
        self.url = url; self.state = state; self.bytes = bytes; self.reconnects = reconnects; self.lastError = lastError
    }
}

extension TaskStatus {
    /// What the task store must learn as soon as it changes (see `StatusWritePolicy`): the task,
    /// input and output states, the reason, the node, the applied sequence, restarts and files.
    /// Counters (frames, fps, uptime, bytes, packets…) are left out: they are read live from the
    /// node that runs the task.
    public var storeKey: String {
        var parts = [state.rawValue, reason ?? "", node ?? "", sequence.map(String.init) ?? "", String(workerRestarts ?? 0)]
        parts += inputs.map { "i:\($0.id)=\($0.state.rawValue)" }
        parts += outputs.map { "o:\($0.url)=\($0.state.rawValue):\(($0.files ?? []).joined(separator: ","))" }
        // An upload's state, not its byte counts: `uploaded` must reach the store at once.
        parts += outputs.flatMap { output in (output.uploads ?? []).map { "u:\($0.file)=\($0.state.rawValue)" } }
        return parts.joined(separator: "\u{1F}")
    }
}
