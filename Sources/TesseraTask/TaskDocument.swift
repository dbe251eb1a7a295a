import TesseraRTP
/// The task document of SPEC §1 exactly as a caller writes it: every field optional where the
/// contract gives a default. `TaskDocumentReader` builds it from JSON with field-path errors and
/// `TaskValidator` turns it into the `ResolvedTask` the pipeline trusts.
public struct TaskDocument: Codable, Sendable, Equatable {
    public var taskId: String?
    public var mode: String?
    public var pace: String?
    public var maxDurationSeconds: Double?
    public var idleTimeoutSeconds: Double?
    public var callbackUrl: String?
    public var inputs: [InputSpec]
    public var encoder: EncoderSpec?
    public var layout: LayoutSpec?
    public var audio: AudioSpec?
    public var outputs: [OutputSpec]
    /// Periodic layout-and-volume SEI and the app data it carries (issue 13).
    public var sei: SEISpec?
    /// Updates on the task's clock, applied offline as a `PATCH` is live (`tessera mix` of a show's timeline).
    public var updates: [ScheduledUpdateSpec]?
    /// A timeline manifest's notes for people (files, offsets, gaps); kept as written, not interpreted.
    public var timeline: JSONValue?

    public init(
        taskId: String? = nil, mode: String? = nil, pace: String? = nil,
        maxDurationSeconds: Double? = nil, idleTimeoutSeconds: Double? = nil, callbackUrl: String? = nil,
        inputs: [InputSpec] = [], encoder: EncoderSpec? = nil, layout: LayoutSpec? = nil,
        audio: AudioSpec? = nil, outputs: [OutputSpec] = []
    ) {
        self.taskId = taskId; self.mode = mode; self.pace = pace
        self.maxDurationSeconds = maxDurationSeconds; self.idleTimeoutSeconds = idleTimeoutSeconds
        self.callbackUrl = callbackUrl; self.inputs = inputs; self.encoder = encoder
        self.layout = layout; self.audio = audio; self.outputs = outputs
    }
}

public struct InputSpec: Codable, Sendable, Equatable {
    public var id: String
    public var url: String?
    public var rtp: RTPSpec?
    public var loop: Bool?
    public var startAtMs: Int?
    /// Live: how long the input may send nothing before its region falls back to its placeholder.
    public var silenceTimeoutMs: Int?
    /// Whether the input's H.264 SEI user data is carried into the output [true].
    public var seiPassthrough: Bool?
    /// Instead of `url`: files played in turn, each from its own `startAtMs`.
    public var sequence: [SequenceFileSpec]?
    /// Spans of the task's clock in which the input is absent (placeholder, silence).
    public var gaps: [GapSpec]?

    public init(id: String, url: String? = nil, rtp: RTPSpec? = nil, loop: Bool? = nil, startAtMs: Int? = nil,
                silenceTimeoutMs: Int? = nil) {
        self.id = id; self.url = url; self.rtp = rtp; self.loop = loop; self.startAtMs = startAtMs
        self.silenceTimeoutMs = silenceTimeoutMs
    }
}

public struct EncoderSpec: Codable, Sendable, Equatable {
    public var video: VideoEncoderSpec?
    public var audio: AudioEncoderSpec?
    public init(video: VideoEncoderSpec? = nil, audio: AudioEncoderSpec? = nil) { self.video = video; self.audio = audio }
}

public struct VideoEncoderSpec: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int?
    public var bitrateKbps: Int?
    public var gopSeconds: Double?
    public var codec: String?
    public var preset: String?
    /// `normal` or `low` (see `EncoderLatency`).
    public var latency: String?
    /// x264's thread count, 1–16; nil: sized from the work live (see `EncoderThreads`), x264's
    /// own choice offline.
    public var threads: Int?
    /// H.264 profile: `high` [default], `main` or `baseline` (constrained baseline, which an RTP
    /// output sends, so one x264 encode feeds RTMP and the room alike).
    public var profile: String?
    /// Smaller encodes of the same composite beside the main size (an ABR ladder): each one is
    /// scaled from the composite and encoded once (see `Rendition`).
    public var renditions: [RenditionSpec]?
    public init(width: Int, height: Int, fps: Int? = nil, bitrateKbps: Int? = nil, gopSeconds: Double? = nil,
                codec: String? = nil, preset: String? = nil, latency: String? = nil, threads: Int? = nil) {
        self.width = width; self.height = height; self.fps = fps; self.bitrateKbps = bitrateKbps
        self.gopSeconds = gopSeconds; self.codec = codec; self.preset = preset; self.latency = latency
        self.threads = threads
    }
}

public struct AudioEncoderSpec: Codable, Sendable, Equatable {
    public var sampleRate: Int?
    public var channels: Int?
    public var bitrateKbps: Int?
    public var codec: String?
    public init(sampleRate: Int? = nil, channels: Int? = nil, bitrateKbps: Int? = nil, codec: String? = nil) {
        self.sampleRate = sampleRate; self.channels = channels; self.bitrateKbps = bitrateKbps; self.codec = codec
    }
}

public struct LayoutSpec: Codable, Sendable, Equatable {
    public var backgroundColor: String?
    public var backgroundImage: String?
    public var template: String?
    public var regions: [RegionSpec]?
    /// Which inputs take a template slot: `all` [default] or `present` (those showing video now).
    public var fill: String?
    /// With `fill: present`: inputs without video (audio-only participants) keep a slot too.
    public var audioOnlySlots: Bool?
    /// The input that takes the template's first (big) slot.
    public var main: String?
    public init(backgroundColor: String? = nil, backgroundImage: String? = nil, template: String? = nil,
                regions: [RegionSpec]? = nil, fill: String? = nil, audioOnlySlots: Bool? = nil, main: String? = nil) {
        self.backgroundColor = backgroundColor; self.backgroundImage = backgroundImage
        self.template = template; self.regions = regions
        self.fill = fill; self.audioOnlySlots = audioOnlySlots; self.main = main
    }
}

public struct RegionSpec: Codable, Sendable, Equatable {
    public var input: String?
    public var image: String?
    /// A text region's text (the third kind of region, beside `input` and `image`).
    public var text: String?
    public var units: String?
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var zOrder: Int?
    public var alpha: Double?
    public var renderMode: String?
    public var backgroundColor: String?
    public var placeholderImage: String?
    /// Text regions: glyph height in pixels, `#RRGGBB[AA]`, a TTF / OTF file, `left|center|right`.
    public var fontSize: Double?
    public var color: String?
    public var font: String?
    public var align: String?
    /// The part of the source picture shown, in fractions of it (before the render mode).
    public var sourceCrop: SourceCropSpec?
    /// Rounded corners, in canvas pixels.
    public var cornerRadius: Double?
    /// A PNG whose alpha, scaled to the region, multiplies the region's alpha.
    public var maskImage: String?
    /// What a live input's region shows once the input stops sending: `placeholder` or `lastFrame`.
    public var onVideoLoss: String?

    public init(input: String? = nil, image: String? = nil, text: String? = nil, units: String? = nil,
                x: Double, y: Double, width: Double, height: Double, zOrder: Int? = nil, alpha: Double? = nil,
                renderMode: String? = nil, backgroundColor: String? = nil, placeholderImage: String? = nil,
                fontSize: Double? = nil, color: String? = nil, font: String? = nil, align: String? = nil,
                sourceCrop: SourceCropSpec? = nil, cornerRadius: Double? = nil, maskImage: String? = nil,
                onVideoLoss: String? = nil) {
        self.input = input; self.image = image; self.text = text; self.units = units
        self.x = x; self.y = y; self.width = width; self.height = height
        self.zOrder = zOrder; self.alpha = alpha; self.renderMode = renderMode
        self.backgroundColor = backgroundColor; self.placeholderImage = placeholderImage
        self.fontSize = fontSize; self.color = color; self.font = font; self.align = align
        self.sourceCrop = sourceCrop; self.cornerRadius = cornerRadius; self.maskImage = maskImage
        self.onVideoLoss = onVideoLoss
    }
}

/// `regions[].sourceCrop` as written: fractions (0–1) of the source picture; a missing field
/// reads as nil and is reported as required.
public struct SourceCropSpec: Codable, Sendable, Equatable {
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?
    public init(x: Double?, y: Double?, width: Double?, height: Double?) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

public struct AudioSpec: Codable, Sendable, Equatable {
    public var inputs: [String]?
    public var volumes: [String: Double]?
    public init(inputs: [String]? = nil, volumes: [String: Double]? = nil) { self.inputs = inputs; self.volumes = volumes }
}

public struct OutputSpec: Codable, Sendable, Equatable {
    public var url: String
    /// `rtp://HOST:PORT` outputs only: what is sent where (see `RTPOutputSpec`).
    public var rtp: RTPOutputSpec?
    /// `.m3u8` outputs only: how segments are cut and kept.
    public var hls: HLSSpec?
    /// Recordings (files, HLS) only: hold the output without closing it (`PATCH` to pause / resume).
    public var paused: Bool?
    /// RTMP, SRT and file outputs: which encode they take, 0 the main size [0], N
    /// `encoder.video.renditions[N-1]`.
    public var rendition: Int?
    /// HLS and file outputs: JPEGs of the composite, sprite sheets and a WebVTT track (issue 33).
    public var thumbnails: ThumbnailSpec?
    public init(url: String, rtp: RTPOutputSpec? = nil) { self.url = url; self.rtp = rtp }
}

/// `encoder.video.renditions[]`: one rung of the ladder, unset fields as the validator says.
public struct RenditionSpec: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitrateKbps: Int
    /// nil: the task's fps; lower rates keep every `fps / this`-th frame.
    public var fps: Int?
    public init(width: Int, height: Int, bitrateKbps: Int, fps: Int? = nil) {
        self.width = width; self.height = height; self.bitrateKbps = bitrateKbps; self.fps = fps
    }
}

/// `outputs[].hls`.
public struct HLSSpec: Codable, Sendable, Equatable {
    public var segmentSeconds: Double?
    public var playlist: String?
    public var windowSegments: Int?
    public var segmentFormat: String?
    /// `lowLatency.partSeconds`: LL-HLS parts of this length (nil: classic HLS).
    public var lowLatency: HLSLowLatencySpec?
    /// A rewind window by duration (a `live` playlist), instead of `windowSegments`.
    public var dvrSeconds: Double?
    /// The key viewers' URLs carry at Tessera's origin.
    public var viewerKey: String?
    public init(segmentSeconds: Double? = nil, playlist: String? = nil, windowSegments: Int? = nil, segmentFormat: String? = nil,
                lowLatency: HLSLowLatencySpec? = nil, dvrSeconds: Double? = nil, viewerKey: String? = nil) {
        self.segmentSeconds = segmentSeconds; self.playlist = playlist; self.windowSegments = windowSegments
        self.segmentFormat = segmentFormat; self.lowLatency = lowLatency; self.dvrSeconds = dvrSeconds; self.viewerKey = viewerKey
    }
}

/// `outputs[].hls.lowLatency`.
public struct HLSLowLatencySpec: Codable, Sendable, Equatable {
    public var partSeconds: Double?
    public init(partSeconds: Double? = nil) { self.partSeconds = partSeconds }
}

/// `outputs[].rtp`: the mix sent back into the room as RTP, as the SFU that receives it expects.
/// Unset fields take the defaults the validator names (`RTPOutputSettings`).
public struct RTPOutputSpec: Codable, Sendable, Equatable {
    public var audioPort: Int?
    /// Where each stream's RTCP goes when it is not port + 1 (a receiver that gave its own RTCP
    /// port, as Janus's VideoRoom remote publisher does).
    public var videoRtcpPort: Int?
    public var audioRtcpPort: Int?
    public var videoCodec: String?
    public var audioCodec: String?
    public var videoPayloadType: Int?
    public var audioPayloadType: Int?
    /// Read as `Int` so that a negative or too large SSRC is named, not wrapped.
    public var videoSsrc: Int?
    public var audioSsrc: Int?
    public var rtcpMux: Bool?
    public var srtp: SRTPSpec?
    public init() {}
}

/// `sei`: `{"volume": {"intervalMs", "uuid"}, "appData"}`.
public struct SEISpec: Codable, Sendable, Equatable {
    public var volume: VolumeSEISpec?
    public var appData: String?
    public init(volume: VolumeSEISpec? = nil, appData: String? = nil) { self.volume = volume; self.appData = appData }
}

public struct VolumeSEISpec: Codable, Sendable, Equatable {
    public var intervalMs: Int?
    public var uuid: String?
    public init(intervalMs: Int? = nil, uuid: String? = nil) { self.intervalMs = intervalMs; self.uuid = uuid }
}
