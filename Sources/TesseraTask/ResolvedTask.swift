import TesseraComposition
import TesseraRTP
/// A task after validation: every default filled in, every path resolved, every rectangle in even
/// canvas pixels. The pipeline accepts only this value, so nothing downstream re-checks the caller.
public struct ResolvedTask: Codable, Sendable, Equatable {
    public var taskId: String
    public var mode: TaskMode
    public var pace: Pace
    public var maxDurationSeconds: Double?
    public var idleTimeoutSeconds: Double
    public var callbackUrl: String?
    public var inputs: [ResolvedInput]
    /// nil for an audio-only task (no `encoder.video`).
    public var video: VideoSettings?
    public var audio: AudioSettings
    /// nil for an audio-only task and for `relay`.
    public var layout: ResolvedLayout?
    public var audioMix: AudioMixPlan
    public var outputs: [ResolvedOutput]
    /// Periodic layout-and-volume SEI; nil: none.
    public var sei: SEISettings?
    /// Offline: updates on the task's clock (a show's `updates`), each applied at the first frame
    /// at or after its time; nil: none.
    public var schedule: [ScheduledUpdate]?
    /// The document's encoder, layout, audio and SEI sections as written, for the show's timeline
    /// manifest (`ShowTimeline`); nil in plans stored before it existed.
    public var sections: TaskSections?

    public init(taskId: String, mode: TaskMode, pace: Pace, maxDurationSeconds: Double?, idleTimeoutSeconds: Double,
                callbackUrl: String?, inputs: [ResolvedInput], video: VideoSettings?, audio: AudioSettings,
                layout: ResolvedLayout?, audioMix: AudioMixPlan, outputs: [ResolvedOutput]) {
        self.taskId = taskId; self.mode = mode; self.pace = pace; self.maxDurationSeconds = maxDurationSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds; self.callbackUrl = callbackUrl; self.inputs = inputs
        self.video = video; self.audio = audio; self.layout = layout; self.audioMix = audioMix; self.outputs = outputs
    }
}

public enum TaskMode: String, Codable, Sendable, Equatable, CaseIterable { case mix, relay }
public enum Pace: String, Codable, Sendable, Equatable, CaseIterable { case realtime, asap }

public struct ResolvedInput: Codable, Sendable, Equatable {
    public enum Source: Codable, Sendable, Equatable {
        /// An absolute file path (already resolved against the media root).
        case file(path: String)
        /// A network pull URL (`rtmp:`, `rtmps:`, `http:`, `https:`, `srt:`).
        case network(url: String)
        /// RTP described by an SDP text; `source`: the only sender taken (nil: the first one is
        /// latched).
        case rtpSDP(sdp: String, source: RTPSourceFilter? = nil)
        /// RTP on ports the service chooses, described as asked (`tessera serve` turns it into
        /// `rtpSDP` with the SDP it writes before a worker sees it).
        case rtpAllocate(request: RTPAllocationRequest, source: RTPSourceFilter? = nil)
        /// Files played in turn, each from its own start on the output timeline (`inputs[].sequence`:
        /// a participant recorded in several files, re-mixed offline).
        case sequence([TimedFile])
    }
    public var id: String
    public var source: Source
    public var loop: Bool
    /// Where the input's own time zero lies on the output timeline, in microseconds.
    public var startAtMicroseconds: Int64
    /// Live: an input silent this long shows its placeholder (state `waiting`) until media returns.
    public var silenceMicroseconds: Int64
    /// Carry the input's H.264 SEI user data into the output.
    public var seiPassthrough: Bool = true
    /// Output-timeline spans in which the input is absent (placeholder, silence), sorted and disjoint.
    public var gaps: [InputGap] = []

    public static let defaultSilenceMicroseconds: Int64 = 2_000_000

    public init(id: String, source: Source, loop: Bool, startAtMicroseconds: Int64,
                silenceMicroseconds: Int64 = ResolvedInput.defaultSilenceMicroseconds) {
        self.id = id; self.source = source; self.loop = loop; self.startAtMicroseconds = startAtMicroseconds
        self.silenceMicroseconds = silenceMicroseconds
    }

    private enum CodingKeys: String, CodingKey { case id, source, loop, startAtMicroseconds, silenceMicroseconds, seiPassthrough, gaps }

    /// Plans stored before `seiPassthrough` or `gaps` existed read as passing SEI, without gaps.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id), source: try container.decode(Source.self, forKey: .source),
                  loop: try container.decode(Bool.self, forKey: .loop),
                  startAtMicroseconds: try container.decode(Int64.self, forKey: .startAtMicroseconds),
                  silenceMicroseconds: try container.decode(Int64.self, forKey: .silenceMicroseconds))
        seiPassthrough = try container.decodeIfPresent(Bool.self, forKey: .seiPassthrough) ?? true
        gaps = try container.decodeIfPresent([InputGap].self, forKey: .gaps) ?? []
    }
}

public struct VideoSettings: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    public var bitrateKbps: Int
    /// Keyframe interval in frames: `round(gopSeconds * fps)`, at least 1.
    public var gopFrames: Int
    public var codec: String
    public var preset: String
    public var latency: EncoderLatency
    /// x264's threads as the task asked; nil: a live task's are sized from the work on the
    /// machine that encodes (`encoderThreads(cores:)`), an offline task's are x264's own choice.
    public var threads: Int?
    /// The H.264 profile of the task's main encode (RTMP, SRT, files).
    public var profile: H264Profile
    /// Smaller encodes of the composite beside the main size: an output's `rendition` N takes
    /// `renditions[N-1]` (see `ladder`).
    public var renditions: [Rendition]

    public init(width: Int, height: Int, fps: Int, bitrateKbps: Int, gopFrames: Int, codec: String, preset: String,
                latency: EncoderLatency = .normal, threads: Int? = nil, profile: H264Profile = .high,
                renditions: [Rendition] = []) {
        self.width = width; self.height = height; self.fps = fps; self.bitrateKbps = bitrateKbps
        self.gopFrames = gopFrames; self.codec = codec; self.preset = preset; self.latency = latency
        self.threads = threads; self.profile = profile; self.renditions = renditions
    }

    private enum CodingKeys: String, CodingKey {
        case width, height, fps, bitrateKbps, gopFrames, codec, preset, latency, threads, profile, renditions
    }

    /// A live task's encoder thread count on a machine of `cores` cores.
    public func encoderThreads(cores: Int) -> Int {
        threads ?? EncoderThreads.automatic(width: width, height: height, fps: fps, preset: preset, cores: cores)
    }

    /// Plans stored before `latency`, `threads`, `profile` or `renditions` existed (a task resumed after an
    /// upgrade) read as `normal`, with automatic threads, in the high profile.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height),
                  fps: try container.decode(Int.self, forKey: .fps), bitrateKbps: try container.decode(Int.self, forKey: .bitrateKbps),
                  gopFrames: try container.decode(Int.self, forKey: .gopFrames), codec: try container.decode(String.self, forKey: .codec),
                  preset: try container.decode(String.self, forKey: .preset),
                  latency: try container.decodeIfPresent(EncoderLatency.self, forKey: .latency) ?? .normal,
                  threads: try container.decodeIfPresent(Int.self, forKey: .threads),
                  profile: try container.decodeIfPresent(H264Profile.self, forKey: .profile) ?? .high,
                  renditions: try container.decodeIfPresent([Rendition].self, forKey: .renditions) ?? [])
    }
}

/// The H.264 profiles x264 is asked for. Constrained baseline (no B-frames, no CABAC, no 8×8
/// transform) is what WebRTC receivers must decode; high compresses about a tenth better.
public enum H264Profile: String, Codable, Sendable, CaseIterable {
    case high, main, baseline

    /// The `profile_idc` and constraint flags byte of `profile-level-id` (RFC 6184 §8.1);
    /// baseline is sent as constrained baseline (`42e0`).
    public var profileIdcAndConstraints: String {
        switch self {
        case .baseline: return "42e0"
        case .main: return "4d40"
        case .high: return "6400"
        }
    }
}

public struct AudioSettings: Codable, Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    public var bitrateKbps: Int
    public var codec: String
    public init(sampleRate: Int, channels: Int, bitrateKbps: Int, codec: String) {
        self.sampleRate = sampleRate; self.channels = channels; self.bitrateKbps = bitrateKbps; self.codec = codec
    }
}

public struct AudioMixPlan: Codable, Sendable, Equatable {
    /// Linear gain per input, in `ResolvedTask.inputs` order; 0 for inputs left out of `audio.inputs`.
    public var gains: [Float]
    public init(gains: [Float]) { self.gains = gains }
}

public struct ResolvedOutput: Codable, Sendable, Equatable {
    public enum Kind: Codable, Sendable, Equatable {
        /// A file at an absolute path, in the container its extension names.
        case file(path: String, container: Container)
        /// `rtmp:` / `rtmps:`: FLV over RTMP.
        case rtmp
        /// `srt:`: MPEG-TS over SRT.
        case srt
        /// `rtp:`: RTP (SRTP) to an SFU, with its own codecs (`RTPOutputSettings`).
        case rtp(RTPOutputSettings)
        /// `….m3u8`: HLS segments and playlists, as files or HTTP `PUT`s.
        case hls(HLSSettings)
        /// A path (or s3 spool path) with `{input}`: one remuxed recording per input.
        case perInput(PerInputRecording)
    }
    public var url: String
    public var kind: Kind
    /// A recording (file or HLS) on hold: it receives nothing, and on resume its timestamps go on
    /// from where they stopped, so the paused span is simply absent.
    public var paused: Bool
    /// The encode an RTMP, SRT or file output takes: 0 the main size, N `VideoSettings.renditions[N-1]`.
    /// (An HLS output takes every one when the task has renditions.)
    public var rendition: Int
    /// `s3://BUCKET/KEY`: the file or HLS output is written to a spool under the output directory
    /// and uploaded to this object (`kind` says what is written where).
    public var upload: ObjectLocation?
    /// JPEGs of the composite every interval, sprite sheets and a WebVTT track (`ThumbnailPlan`).
    public var thumbnails: ThumbnailSettings?

    public init(url: String, kind: Kind, paused: Bool = false, rendition: Int = 0, upload: ObjectLocation? = nil,
                thumbnails: ThumbnailSettings? = nil) {
        self.url = url; self.kind = kind; self.paused = paused; self.rendition = rendition; self.upload = upload
        self.thumbnails = thumbnails
    }

    /// The same destination, whatever its pause: an update that only pauses or resumes an output
    /// keeps it open. Another rendition is another stream, so the output is opened anew.
    public func isSameDestination(as other: ResolvedOutput) -> Bool {
        url == other.url && kind == other.kind && rendition == other.rendition
    }

    private enum CodingKeys: String, CodingKey { case url, kind, paused, rendition, upload, thumbnails }

    /// Plans stored before `paused` or `rendition` existed read as not paused, at the main size.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try container.decode(String.self, forKey: .url), kind: try container.decode(Kind.self, forKey: .kind),
                  paused: try container.decodeIfPresent(Bool.self, forKey: .paused) ?? false,
                  rendition: try container.decodeIfPresent(Int.self, forKey: .rendition) ?? 0,
                  upload: try container.decodeIfPresent(ObjectLocation.self, forKey: .upload),
                  thumbnails: try container.decodeIfPresent(ThumbnailSettings.self, forKey: .thumbnails))
    }
}

/// Output containers and the libavformat muxer each one uses.
public enum Container: String, Codable, Sendable, Equatable, CaseIterable {
    case mp4, flv, mkv, ts
    /// Uncompressed YUV4MPEG2 of the composite before encoding (video only): for inspecting
    /// exact pixels and for feeding other tools.
    case y4m

    /// The libavformat muxer; nil for `y4m`, which Tessera writes itself from raw frames.
    public var muxerName: String? {
        switch self {
        case .mp4: return "mp4"
        case .flv: return "flv"
        case .mkv: return "matroska"
        case .ts: return "mpegts"
        case .y4m: return nil
        }
    }

    /// The container a file extension names (`.mp4`, `.flv`, `.mkv`, `.ts`), case-insensitively.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "mp4", "m4v": self = .mp4
        case "flv": self = .flv
        case "mkv": self = .mkv
        case "ts": self = .ts
        case "y4m": self = .y4m
        default: return nil
        }
    }
}

