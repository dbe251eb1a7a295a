/// A named layout (`layout.template`): a list of variants, each a list of slots in fractions of
/// the canvas. A task places its inputs in the smallest variant with enough slots, in input order.
/// The file format is described in `Layouts/README.md`.
public struct LayoutTemplate: Sendable, Equatable {
    public var name: String
    public var description: String
    /// Sorted by slot count, smallest first.
    public var variants: [TemplateVariant]

    public init(name: String, description: String, variants: [TemplateVariant]) {
        self.name = name
        self.description = description
        self.variants = variants.sorted { $0.slots.count < $1.slots.count }
    }

    /// The most inputs one variant can place.
    public var maxInputs: Int { variants.last?.slots.count ?? 0 }

    /// The smallest variant with room for `count` inputs; nil when there is none. Zero inputs
    /// need no variant and get an empty one.
    public func variant(for count: Int) -> TemplateVariant? {
        if count == 0 { return TemplateVariant(slots: []) }
        return variants.first { $0.slots.count >= count }
    }
}

/// One arrangement of a template, for up to `slots.count` inputs.
public struct TemplateVariant: Sendable, Equatable {
    /// Filled in order: the first input goes to `slots[0]`.
    public var slots: [TemplateSlot]
    public init(slots: [TemplateSlot]) { self.slots = slots }
}

/// One place for an input, in fractions of the canvas (`x: 0.5` is the middle).
public struct TemplateSlot: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var zOrder: Int
    public var renderMode: RenderMode
    public var backgroundColor: YUVColor?

    public init(x: Double, y: Double, width: Double, height: Double, zOrder: Int = 0,
                renderMode: RenderMode = .crop, backgroundColor: YUVColor? = nil) {
        self.x = x; self.y = y; self.width = width; self.height = height
        self.zOrder = zOrder; self.renderMode = renderMode; self.backgroundColor = backgroundColor
    }

    /// The slot in even canvas pixels. Edges (not sizes) are snapped down, so neighbouring slots
    /// such as the thirds of a 3×3 grid meet without a gap. Each edge is first rounded to 1/100
    /// pixel, so a third written as `0.333333` (× 720 = 239.99976) lands on 240, not 238.
    public func rect(canvas: PixelSize) -> PixelRect {
        func edge(_ fraction: Double, _ size: Int) -> Int {
            let value = Int(((fraction * Double(size) * 100).rounded() / 100).rounded(.down))
            return value - (value & 1)
        }
        let left = edge(x, canvas.width), top = edge(y, canvas.height)
        let right = edge(x + width, canvas.width), bottom = edge(y + height, canvas.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
