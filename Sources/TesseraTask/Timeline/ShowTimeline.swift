import Foundation

/// What a live task's show was, on the task clock (µs since the worker's `TaskClock` zero; the
/// composite's frame N is at `compositeStartMicroseconds + N / fps` on it): the per-participant
/// files, when each input was absent from the composite, every accepted update as the `PATCH` gave
/// it, and the document sections the task started with. Fed by the worker as things happen, it
/// yields at any moment the manifest (`TimelineManifest`): a task document `tessera mix` renders
/// the show from again. Pure: no clock, no I/O.
public struct ShowTimeline: Sendable, Equatable {
    /// An accepted update at the frame it took effect: only the sections it changed.
    public struct Update: Sendable, Equatable {
        public var atMicroseconds: Int64
        public var layout: LayoutSpec?
        public var audio: AudioSpec?
        public var sei: SEISpec?
    }

    /// One input as the live composite saw it.
    struct InputRecord: Sendable, Equatable {
        var silenceMicroseconds: Int64
        /// Closed spans in which the composite did not show the input.
        var absences: [InputGap] = []
        /// Since when it is absent, while it is.
        var absentSince: Int64?
    }

    public let taskId: String
    /// Wall time (seconds since 1970) of the task clock's zero.
    public let startedAt: Double
    /// The sections the task started with.
    public let start: TaskSections
    /// The sections in force (the start's, as updates changed them).
    public private(set) var current: TaskSections
    /// Where the composite's time zero lies on the task clock (live: the frame of the inputs'
    /// first pictures); nil until the output starts.
    public private(set) var compositeStartMicroseconds: Int64?
    /// Every file reported, in the order they opened (a later report of a `url` replaces it).
    public private(set) var files: [RecordedFile] = []
    public private(set) var updates: [Update] = []
    /// Task-clock time at which the show ended; nil while it runs.
    public private(set) var endMicroseconds: Int64?
    /// Inputs by id, and the order they joined the task.
    private(set) var inputs: [String: InputRecord] = [:]
    public private(set) var inputOrder: [String] = []

    /// `inputs`: the task's inputs at the start (id and silence timeout), absent until their media.
    public init(taskId: String, startedAt: Double, sections: TaskSections,
                inputs: [(id: String, silenceMicroseconds: Int64)]) {
        self.taskId = taskId
        self.startedAt = startedAt
        start = sections
        current = sections
        setInputs(inputs, at: 0)
    }

    // MARK: Events

    /// The composite's first frame is at `microseconds`: before it nothing was shown, so no input
    /// was absent from it; an input still absent then is absent from there on.
    public mutating func compositeStarted(at microseconds: Int64) {
        guard compositeStartMicroseconds == nil else { return }
        compositeStartMicroseconds = microseconds
        for id in inputOrder {
            guard var record = inputs[id] else { continue }
            record.absences.removeAll { $0.toMicroseconds <= microseconds }
            if let since = record.absentSince, since < microseconds { record.absentSince = microseconds }
            inputs[id] = record
        }
    }

    /// A file opened (no end) or finished (its end). Returns whether the timeline changed.
    @discardableResult
    public mutating func recorded(_ file: RecordedFile) -> Bool {
        if let index = files.firstIndex(where: { $0.url == file.url }) {
            guard files[index] != file else { return false }
            files[index] = file
        } else {
            files.append(file)
        }
        if inputs[file.input] == nil {
            inputs[file.input] = InputRecord(silenceMicroseconds: ResolvedInput.defaultSilenceMicroseconds)
            inputOrder.append(file.input)
        }
        return true
    }

    /// The composite began (`live`) or stopped showing an input at the frame at `microseconds`.
    /// Returns whether that is a change.
    @discardableResult
    public mutating func input(_ id: String, live: Bool, at microseconds: Int64) -> Bool {
        guard var record = inputs[id] else { return false }
        if live {
            guard let since = record.absentSince else { return false }
            if microseconds > since { record.absences.append(InputGap(fromMicroseconds: since, toMicroseconds: microseconds)) }
            record.absentSince = nil
        } else {
            guard record.absentSince == nil else { return false }
            record.absentSince = microseconds
        }
        inputs[id] = record
        return true
    }

    /// An update took effect at the frame at `microseconds`: its inputs (new ones absent until
    /// their media, removed ones absent from now) and the sections it changed. Returns whether a
    /// section changed.
    @discardableResult
    public mutating func updateApplied(_ sections: TaskSections?, inputs updated: [(id: String, silenceMicroseconds: Int64)],
                                       at microseconds: Int64) -> Bool {
        setInputs(updated, at: microseconds)
        guard let sections else { return false }
        var update = Update(atMicroseconds: microseconds)
        if sections.layout != current.layout { update.layout = sections.layout ?? LayoutSpec() }
        if sections.audio != current.audio { update.audio = sections.audio ?? AudioSpec() }
        if sections.sei != current.sei { update.sei = sections.sei ?? SEISpec() }
        current.layout = sections.layout; current.audio = sections.audio; current.sei = sections.sei
        guard update.layout != nil || update.audio != nil || update.sei != nil else { return false }
        updates.append(update)
        return true
    }

    /// The show ended: open absences close here.
    public mutating func ended(at microseconds: Int64) {
        guard endMicroseconds == nil else { return }
        endMicroseconds = microseconds
        for id in inputOrder { input(id, live: true, at: microseconds) }
    }

    private mutating func setInputs(_ list: [(id: String, silenceMicroseconds: Int64)], at microseconds: Int64) {
        let ids = Set(list.map(\.id))
        for (id, silence) in list {
            if var record = inputs[id] {
                record.silenceMicroseconds = silence
                inputs[id] = record
            } else {
                inputs[id] = InputRecord(silenceMicroseconds: silence, absentSince: microseconds)
                inputOrder.append(id)
            }
        }
        for id in inputOrder where !ids.contains(id) { input(id, live: false, at: microseconds) }
    }

    // MARK: Reading

    /// The input's absences so far (an open one up to `until`), sorted and merged.
    public func absences(of id: String, until: Int64) -> [InputGap] {
        guard let record = inputs[id] else { return [] }
        var spans = record.absences
        if let since = record.absentSince, until > since { spans.append(InputGap(fromMicroseconds: since, toMicroseconds: until)) }
        return Self.merged(spans)
    }

    public func silenceMicroseconds(of id: String) -> Int64 {
        inputs[id]?.silenceMicroseconds ?? ResolvedInput.defaultSilenceMicroseconds
    }

    /// Sorted, overlapping and touching spans joined.
    static func merged(_ spans: [InputGap]) -> [InputGap] {
        var out: [InputGap] = []
        for span in spans.sorted(by: { $0.fromMicroseconds < $1.fromMicroseconds }) {
            if let last = out.last, span.fromMicroseconds <= last.toMicroseconds {
                out[out.count - 1].toMicroseconds = max(last.toMicroseconds, span.toMicroseconds)
            } else {
                out.append(span)
            }
        }
        return out
    }
}

extension ShowTimeline.Update {
    public init(atMicroseconds: Int64) { self.atMicroseconds = atMicroseconds }
}
