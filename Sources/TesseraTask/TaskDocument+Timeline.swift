/// The parts of a task document that replay a recorded show (issue 32): an input played from
/// several files, the spans an input was absent, the updates accepted while it ran, and the
/// manifest's own notes (`timeline`).

/// `inputs[].sequence[]`: one file of an input recorded in several, placed at its own time.
public struct SequenceFileSpec: Codable, Sendable, Equatable {
    public var url: String
    public var startAtMs: Int
    public init(url: String, startAtMs: Int) { self.url = url; self.startAtMs = startAtMs }
}

/// `inputs[].gaps[]`: a span of the task's clock in which the input was absent.
public struct GapSpec: Codable, Sendable, Equatable {
    public var fromMs: Int
    public var toMs: Int
    public init(fromMs: Int, toMs: Int) { self.fromMs = fromMs; self.toMs = toMs }
}

/// `updates[]`: an update accepted at `atMs` on the task's clock, with the sections it replaced
/// (each as a `PATCH` carries it).
public struct ScheduledUpdateSpec: Codable, Sendable, Equatable {
    public var atMs: Int
    public var layout: LayoutSpec?
    public var audio: AudioSpec?
    public var sei: SEISpec?
    public init(atMs: Int, layout: LayoutSpec? = nil, audio: AudioSpec? = nil, sei: SEISpec? = nil) {
        self.atMs = atMs; self.layout = layout; self.audio = audio; self.sei = sei
    }
}
