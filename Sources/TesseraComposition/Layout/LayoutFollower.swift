/// Follows the room for a layout that re-flows (`ResolvedLayout.flow`): given, each output frame,
/// which inputs show video and how loud each is, says when the arrangement changes and what to
/// draw then. Also names the `standby` regions: where an input would be drawn if it joined or
/// became the speaker, so its pictures are scaled for that size before the change, not after.
///
/// Pure and owned by one thread (the output's); `follow` is cheap when nothing changes.
public struct LayoutFollower: Sendable {
    public struct Change: Sendable, Equatable {
        public var layout: ResolvedLayout
        public var standby: [ResolvedRegion]
    }

    private let flow: LayoutFlow?
    private var selector: SpeakerSelector
    /// What the last change arranged: inputs in slot order, and the challenger then.
    private var shown: (placed: [Int], challenger: Int?)?

    /// Starts from `layout` as resolved (every candidate placed); nil or a static layout never changes.
    public init(_ layout: ResolvedLayout?) {
        flow = layout?.flow.flatMap { $0.isDynamic ? $0 : nil }
        selector = SpeakerSelector(initial: flow?.candidates.first)
    }

    /// Follows `layout` after a live update, keeping `previous`'s speaker (and its hold and lead
    /// times) so an update that does not touch the room — a text change, a volume — does not move
    /// the big picture. `map` takes the old input indices to the new ones.
    public init(_ layout: ResolvedLayout?, continuing previous: LayoutFollower, map: [Int: Int]) {
        self.init(layout)
        if flow?.followsSpeaker == true && previous.followsSpeaker {
            selector = previous.selector.renumbered(map)
        }
    }

    /// Whether the layout can change at all (false: `follow` always returns nil).
    public var isFollowing: Bool { flow != nil }

    /// Whether the first slot follows the speaker (the only use of `levels`).
    public var followsSpeaker: Bool { flow?.followsSpeaker ?? false }

    /// The layout to swap in at output time `time` (µs), or nil when the arrangement is the one
    /// already shown. `hasVideo`: inputs with a picture now; `audioOnly`: inputs carrying audio
    /// and no video stream; `levels`: 0–100 by input index (only the speaker template reads them).
    public mutating func follow(hasVideo: Set<Int>, audioOnly: Set<Int>, levels: [Int: Double],
                                at time: Int64) -> Change? {
        guard let flow else { return nil }
        let present = flow.arrangement(hasVideo: hasVideo, audioOnly: audioOnly, speaker: nil)
        var speaker: Int?
        if flow.followsSpeaker { speaker = selector.update(candidates: present, levels: levels, at: time) }
        let placed = flow.arrangement(hasVideo: hasVideo, audioOnly: audioOnly, speaker: speaker)
        let challenger = flow.followsSpeaker ? selector.challenger : nil
        if let shown, shown.placed == placed, shown.challenger == challenger { return nil }
        shown = (placed, challenger)
        return Change(layout: flow.layout(placing: placed),
                      standby: standby(flow, placed: placed, challenger: challenger, speaker: speaker))
    }

    /// Regions the inputs not placed (with `fill: present`) would take on joining, and the big
    /// region the challenger would take on winning.
    private func standby(_ flow: LayoutFlow, placed: [Int], challenger: Int?, speaker: Int?) -> [ResolvedRegion] {
        var regions: [ResolvedRegion] = []
        if flow.fill == .present {
            for input in flow.candidates where !placed.contains(input) {
                // Joins go where `arrangement` would put them: candidate order, the speaker first.
                var joined = flow.candidates.filter { placed.contains($0) || $0 == input }
                if let speaker, let at = joined.firstIndex(of: speaker) { joined.remove(at: at); joined.insert(speaker, at: 0) }
                regions += flow.slotRegions(placing: joined).map(\.region).filter { $0.content == .input(input) }
            }
        }
        if let challenger, let region = flow.slotRegions(placing: [challenger] + placed.filter { $0 != challenger }).first {
            regions.append(region.region)
        }
        return regions
    }
}
