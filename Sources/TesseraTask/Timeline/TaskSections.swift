/// The sections of a task document a show's timeline replays, as the caller wrote them (not
/// resolved): a template stays a template, a region keeps its units. The validator keeps them in
/// the plan (`ResolvedTask.sections`) so that the worker, which sees only plans, can write them
/// into the manifest (`ShowTimeline`) as the task started and as each update gave them.
public struct TaskSections: Codable, Sendable, Equatable {
    public var encoder: EncoderSpec?
    public var layout: LayoutSpec?
    public var audio: AudioSpec?
    public var sei: SEISpec?

    public init(encoder: EncoderSpec? = nil, layout: LayoutSpec? = nil, audio: AudioSpec? = nil, sei: SEISpec? = nil) {
        self.encoder = encoder; self.layout = layout; self.audio = audio; self.sei = sei
    }

    public init(_ document: TaskDocument) {
        self.init(encoder: document.encoder, layout: document.layout, audio: document.audio, sei: document.sei)
    }
}
