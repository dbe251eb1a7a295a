/// How a template's slots follow the room: `layout.fill: "present"` gives slots only to the inputs
/// showing video now, and template `speaker` puts the loudest input in the first (big) slot.
///
/// Resolved once with the task (slots in canvas pixels, explicit regions with their `zOrder`), so
/// the output thread re-arranges with plain arithmetic: `arrangement(...)` picks who is placed,
/// `layout(placing:)` builds the layout. A task whose template never re-flows has no flow.
public struct LayoutFlow: Codable, Sendable, Equatable {
    public enum Fill: String, Codable, Sendable, Equatable, CaseIterable {
        /// Every input the template places keeps its slot, video or not (the default).
        case all
        /// Only inputs with video now take a slot; the others' slots close up.
        case present
    }

    public var fill: Fill
    /// With `present`: inputs that have no video stream at all (audio-only participants) keep a slot.
    public var audioOnlySlots: Bool
    /// Template `speaker`: the first slot goes to the speaker (`SpeakerSelector`).
    public var followsSpeaker: Bool
    /// Indices (into the task's inputs) the template places, in the order they fill its slots:
    /// `layout.main` first, then input order.
    public var candidates: [Int]
    /// The template's variants in canvas pixels, fewest slots first.
    public var variants: [[PlacedSlot]]
    /// The explicit `layout.regions`, in document order: they never move.
    public var fixed: [LayeredRegion]
    public var backgroundColor: YUVColor
    public var backgroundImage: String?
    public var canvas: PixelSize

    public init(fill: Fill, audioOnlySlots: Bool, followsSpeaker: Bool, candidates: [Int], variants: [[PlacedSlot]],
                fixed: [LayeredRegion], backgroundColor: YUVColor, backgroundImage: String?, canvas: PixelSize) {
        self.fill = fill; self.audioOnlySlots = audioOnlySlots; self.followsSpeaker = followsSpeaker
        self.candidates = candidates; self.variants = variants; self.fixed = fixed
        self.backgroundColor = backgroundColor; self.backgroundImage = backgroundImage; self.canvas = canvas
    }

    /// Whether the arrangement can change while the task runs.
    public var isDynamic: Bool { fill == .present || followsSpeaker }

    /// Who takes a slot, in slot order. `hasVideo` and `audioOnly` are input indices: inputs
    /// showing video now, and inputs that carry audio but no video stream. With `fill: all` every
    /// candidate is placed. `speaker` (when placed) moves to the first slot; the others keep
    /// their order.
    public func arrangement(hasVideo: Set<Int>, audioOnly: Set<Int>, speaker: Int?) -> [Int] {
        var placed = candidates
        if fill == .present {
            placed = candidates.filter { hasVideo.contains($0) || (audioOnlySlots && audioOnly.contains($0)) }
        }
        if followsSpeaker, let speaker, let at = placed.firstIndex(of: speaker), at > 0 {
            placed.remove(at: at)
            placed.insert(speaker, at: 0)
        }
        return placed
    }

    /// The layout with `placed` (input indices, in slot order) in the template's slots: the
    /// smallest variant that holds them, then the explicit regions, in draw order.
    public func layout(placing placed: [Int]) -> ResolvedLayout {
        var layout = ResolvedLayout(canvasWidth: canvas.width, canvasHeight: canvas.height,
                                    backgroundColor: backgroundColor, backgroundImage: backgroundImage,
                                    regions: Self.drawOrder(slotRegions(placing: placed) + fixed))
        layout.flow = self
        return layout
    }

    /// The template regions for `placed`, each `documentIndex = -1 - slot` (`ResolvedRegion.origin`).
    /// More inputs than the largest variant holds: the extra ones are left out (validation keeps
    /// `candidates` within it, so this only guards).
    public func slotRegions(placing placed: [Int]) -> [LayeredRegion] {
        guard !placed.isEmpty, let slots = variants.first(where: { $0.count >= placed.count }) ?? variants.last else {
            return []
        }
        return zip(placed, slots.indices).map { input, slot in
            let spec = slots[slot]
            return LayeredRegion(zOrder: spec.zOrder,
                                 region: ResolvedRegion(documentIndex: -1 - slot, content: .input(input), rect: spec.rect,
                                                        alpha: 255, renderMode: spec.renderMode,
                                                        backgroundColor: spec.backgroundColor, placeholderImage: nil))
        }
    }

    /// Lowest `zOrder` first; equal `zOrder` keeps the given order (template slots before
    /// explicit regions, so a logo at the same `zOrder` draws on top).
    static func drawOrder(_ placed: [LayeredRegion]) -> [ResolvedRegion] {
        placed.enumerated()
            .sorted { ($0.element.zOrder, $0.offset) < ($1.element.zOrder, $1.offset) }
            .map(\.element.region)
    }
}

/// A template slot in canvas pixels.
public struct PlacedSlot: Codable, Sendable, Equatable {
    public var rect: PixelRect
    public var zOrder: Int
    public var renderMode: RenderMode
    public var backgroundColor: YUVColor?

    public init(_ slot: TemplateSlot, canvas: PixelSize) {
        rect = slot.rect(canvas: canvas)
        zOrder = slot.zOrder
        renderMode = slot.renderMode
        backgroundColor = slot.backgroundColor
    }
}

/// A region with the `zOrder` it was given, before the regions are put in draw order.
public struct LayeredRegion: Codable, Sendable, Equatable {
    public var zOrder: Int
    public var region: ResolvedRegion
    public init(zOrder: Int, region: ResolvedRegion) { self.zOrder = zOrder; self.region = region }
}
