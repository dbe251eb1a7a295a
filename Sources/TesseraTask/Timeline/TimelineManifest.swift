import Foundation

/// `{taskId}.timeline.json`: a task document (mode mix, pace asap) whose inputs are a live show's
/// per-participant files on the task clock, with the layout, audio, SEI and encoder the show
/// started with and every accepted update, plus a `timeline` object for people. Every time here
/// is on the task clock in milliseconds (the files' own timestamps are the same clock).
public struct TimelineManifest: Codable, Sendable, Equatable {
    public struct Input: Codable, Sendable, Equatable {
        public var id: String
        public var url: String?
        public var startAtMs: Int?
        /// The document's own `inputs[].sequence` and `inputs[].gaps` types, so the manifest
        /// reads back as what it wrote; a gap is `[fromMs, toMs)`, the input absent from the composite.
        public var sequence: [SequenceFileSpec]?
        public var gaps: [GapSpec]?
        public var silenceTimeoutMs: Int?
    }

    public struct Output: Codable, Sendable, Equatable {
        public var url: String
        public init(url: String) { self.url = url }
    }

    /// `timeline`: what a person reading the manifest needs; the mix does not read it.
    public struct Info: Codable, Sendable, Equatable {
        public var version: Int
        public var taskId: String
        /// ISO 8601 (UTC, milliseconds): the wall time of the task clock's zero.
        public var startedAt: String
        /// Where the live composite's time zero lies on the task clock.
        public var compositeStartMs: Int?
        /// When the show ended on the task clock (absent while it runs).
        public var endMs: Int?
        public var files: [File]
    }

    public struct File: Codable, Sendable, Equatable {
        public var input: String
        /// As the status listed it: the file's absolute path, or its object's `s3://` URL.
        public var url: String
        public var offsetMs: Int
        /// Absent while the file is being written.
        public var endMs: Int?
        public var gaps: [GapSpec]?
        public var video: RecordedStream?
        public var audio: RecordedStream?
        public var bytes: Int64?
    }

    public var mode = "mix"
    public var pace = "asap"
    public var inputs: [Input]
    public var encoder: EncoderSpec?
    public var layout: LayoutSpec?
    public var audio: AudioSpec?
    public var sei: SEISpec?
    public var updates: [ScheduledUpdateSpec]?
    public var outputs: [Output]
    public var timeline: Info

    /// The manifest's file name for a task.
    public static func fileName(taskId: String) -> String { "\(taskId).timeline.json" }

    /// Pretty, with sorted keys, so that two writes of the same show are the same bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension ShowTimeline {
    /// The manifest as of now (`now`: the task clock; bounds what is still open). `url` names a
    /// file as the inputs list it (relative to the manifest's folder, so the folder can move);
    /// `timeline.files` name it as the status does (its path, or its object's `s3://` URL);
    /// `bytes` its size where known.
    public func manifest(now: Int64, url: (RecordedFile) -> String = { $0.url },
                         bytes: (RecordedFile) -> Int64? = { _ in nil }) -> TimelineManifest {
        let until = endMicroseconds ?? now
        var inputs: [TimelineManifest.Input] = []
        var infoFiles: [TimelineManifest.File] = []
        for id in inputOrder {
            let own = files.filter { $0.input == id }.sorted { $0.offsetMicroseconds < $1.offsetMicroseconds }
            guard let first = own.first else { continue }
            let absences = self.absences(of: id, until: until)
            let last = own.map { $0.endMicroseconds ?? max(until, $0.offsetMicroseconds) }.max() ?? until
            var input = TimelineManifest.Input(id: id, silenceTimeoutMs: Int(silenceMicroseconds(of: id) / 1000))
            if own.count == 1 {
                input.url = url(first)
                input.startAtMs = Self.nearestMs(first.offsetMicroseconds)
            } else {
                input.sequence = own.map { .init(url: url($0), startAtMs: Self.nearestMs($0.offsetMicroseconds)) }
            }
            input.gaps = Self.gaps(absences, from: first.offsetMicroseconds, to: last)
            inputs.append(input)
            for file in own {
                let end = file.endMicroseconds ?? max(until, file.offsetMicroseconds)
                infoFiles.append(.init(input: id, url: file.url, offsetMs: Self.nearestMs(file.offsetMicroseconds),
                                       endMs: file.endMicroseconds.map(Self.nearestMs),
                                       gaps: Self.gaps(absences, from: file.offsetMicroseconds, to: end),
                                       video: file.video, audio: file.audio, bytes: bytes(file)))
            }
        }
        let updates = self.updates.map {
            ScheduledUpdateSpec(atMs: Self.floorMs($0.atMicroseconds), layout: $0.layout, audio: $0.audio, sei: $0.sei)
        }
        let info = TimelineManifest.Info(version: 1, taskId: taskId, startedAt: Self.iso8601(startedAt),
                                         compositeStartMs: compositeStartMicroseconds.map(Self.nearestMs),
                                         endMs: endMicroseconds.map(Self.nearestMs), files: infoFiles)
        return TimelineManifest(inputs: inputs, encoder: start.encoder, layout: start.layout, audio: start.audio, sei: start.sei,
                                updates: updates.isEmpty ? nil : updates, outputs: [.init(url: "\(taskId).remix.mp4")],
                                timeline: info)
    }

    /// `absences` within `[from, to)`, in whole milliseconds (an update's and a gap's edge is the
    /// frame at or after it: rounding down keeps that frame), empty ones left out; nil if none.
    static func gaps(_ absences: [InputGap], from: Int64, to: Int64) -> [GapSpec]? {
        var out: [GapSpec] = []
        for absence in absences {
            let start = max(absence.fromMicroseconds, from), end = min(absence.toMicroseconds, to)
            let fromMs = floorMs(start), toMs = floorMs(end)
            if toMs > fromMs { out.append(.init(fromMs: fromMs, toMs: toMs)) }
        }
        return out.isEmpty ? nil : out
    }

    static func floorMs(_ microseconds: Int64) -> Int {
        Int(microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000)
    }

    static func nearestMs(_ microseconds: Int64) -> Int { floorMs(microseconds + 500) }

    static func iso8601(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
