import TesseraComposition
/// `layout`: background, explicit regions and template slots, resolved into a `ResolvedLayout`
/// with even pixel rectangles in draw order.
extension ValidationContext {
    /// The task's layout: nil for relay and audio-only tasks (where a `layout` is an issue). A mix
    /// with video and no `layout` places its inputs in the `grid` template on black.
    mutating func resolveLayoutSection(_ document: TaskDocument, mode: TaskMode?, inputIds: [String]) -> ResolvedLayout? {
        if mode == .relay { return nil } // the relay check reports a layout
        guard let video = document.encoder?.video else {
            if document.layout != nil {
                issues.add("layout", "an audio-only task (no encoder.video) has no layout; add encoder.video to compose video")
            }
            return nil
        }
        // Relative geometry needs the canvas; without a usable one, check everything else only.
        // (A size far out of range is already an issue; leaving the canvas out then also keeps the
        // pixel arithmetic below from overflowing.)
        let usable = (2...3840).contains(video.width) && (2...2160).contains(video.height)
        let canvas = usable ? PixelSize(width: video.width, height: video.height) : nil
        return resolveLayout(document.layout ?? LayoutSpec(template: "grid"), canvas: canvas, inputIds: inputIds,
                             templateIsImplicit: document.layout == nil)
    }

    /// Resolves a layout against the canvas and the task's input ids.
    mutating func resolveLayout(_ spec: LayoutSpec, canvas: PixelSize?, inputIds: [String],
                                templateIsImplicit: Bool = false) -> ResolvedLayout? {
        let before = issues.count
        var background = YUVColor.black
        if let hex = spec.backgroundColor {
            if let color = YUVColor(hex: hex) { background = color } else {
                issues.add("layout.backgroundColor", "expected #RRGGBB or #RRGGBBAA, got \"\(hex)\"")
            }
        }
        let backgroundImage = spec.backgroundImage.flatMap { resolveImage($0, at: "layout.backgroundImage") }

        let explicit = spec.regions ?? []
        if explicit.count > options.maxRegions {
            issues.add("layout.regions", "at most \(options.maxRegions) regions are allowed (got \(explicit.count))")
        }
        // Template slots first, explicit regions after: at equal zOrder an explicit region draws on top.
        var template: TemplatePlan?
        if let name = spec.template {
            template = templatePlan(name, spec: spec, canvas: canvas, inputIds: inputIds,
                                    explicitInputs: Set(explicit.compactMap(\.input)), implicit: templateIsImplicit)
        } else {
            checkFlowFieldsNeedTemplate(spec)
        }
        var fixed: [LayeredRegion] = []
        for (index, region) in explicit.enumerated() {
            if let resolved = resolveRegion(region, index: index, canvas: canvas, inputIds: inputIds) {
                fixed.append(LayeredRegion(zOrder: resolved.zOrder, region: resolved.region))
            }
        }
        guard issues.count == before, let canvas else { return nil }
        let flow = LayoutFlow(fill: template?.fill ?? .all, audioOnlySlots: spec.audioOnlySlots ?? false,
                              followsSpeaker: template?.followsSpeaker ?? false, candidates: template?.candidates ?? [],
                              variants: template?.variants ?? [], fixed: fixed, backgroundColor: background,
                              backgroundImage: backgroundImage, canvas: canvas)
        // Resolved with every candidate placed: what a preview draws and what `fill: all` keeps.
        var layout = flow.layout(placing: flow.candidates)
        if !flow.isDynamic { layout.flow = nil }
        return layout
    }

    /// One `layout.regions[index]` entry with its zOrder, or nil with its issues noted.
    private mutating func resolveRegion(_ spec: RegionSpec, index: Int, canvas: PixelSize?,
                                        inputIds: [String]) -> (zOrder: Int, region: ResolvedRegion)? {
        let path = FieldPath.element("layout.regions", index)
        let before = issues.count
        var content: ResolvedRegion.Content?
        switch (spec.input, spec.image, spec.text) {
        case (let id?, nil, nil):
            if let inputIndex = inputIds.firstIndex(of: id) { content = .input(inputIndex) } else {
                issues.add(path + ".input", "unknown input \"\(id)\"")
            }
        case (nil, let image?, nil):
            content = resolveImage(image, at: path + ".image").map { .image(path: $0) }
        case (nil, nil, let text?):
            content = resolveText(text, spec: spec, at: path).map { .text($0) }
        default:
            issues.add(path, "needs exactly one of input, image or text")
        }
        if spec.text == nil { checkTextFieldsAbsent(spec, at: path) }
        let rect = resolveGeometry(spec, at: path, canvas: canvas)
        let alpha = spec.alpha ?? 1
        if !(alpha >= 0 && alpha <= 1) { issues.add(path + ".alpha", "must be from 0 to 1") }
        let renderMode = resolveEnum(spec.renderMode, at: path + ".renderMode", default: RenderMode.crop)
        var backgroundColor: YUVColor?
        if let hex = spec.backgroundColor {
            backgroundColor = YUVColor(hex: hex)
            if backgroundColor == nil { issues.add(path + ".backgroundColor", "expected #RRGGBB or #RRGGBBAA, got \"\(hex)\"") }
        }
        var placeholder: String?
        if let image = spec.placeholderImage {
            if spec.image != nil || spec.text != nil {
                issues.add(path + ".placeholderImage", "only an input region shows a placeholder")
            } else {
                placeholder = resolveImage(image, at: path + ".placeholderImage")
            }
        }
        let shape = resolveShape(spec, at: path)
        let onVideoLoss = resolveEnum(spec.onVideoLoss, at: path + ".onVideoLoss", default: VideoLossFallback.placeholder)
        if spec.onVideoLoss != nil, spec.input == nil {
            issues.add(path + ".onVideoLoss", "only an input region loses video")
        }
        if let rect { checkDrawnSize(rect, spec, at: path) }
        guard issues.count == before, let content, let rect, let renderMode else { return nil }
        let region = ResolvedRegion(documentIndex: index, content: content, rect: rect,
                                    alpha: UInt8((alpha * 255).rounded()), renderMode: renderMode,
                                    backgroundColor: backgroundColor, placeholderImage: placeholder,
                                    sourceCrop: shape.sourceCrop, cornerRadius: shape.cornerRadius,
                                    maskImage: shape.maskImage, onVideoLoss: onVideoLoss == .lastFrame ? .lastFrame : nil)
        return (spec.zOrder ?? 0, region)
    }

    /// The region's rectangle in even canvas pixels. Each of x, y, width and height snaps down to
    /// the even number at or below it (toward −∞: −3 → −4), as 4:2:0 chroma needs.
    private mutating func resolveGeometry(_ spec: RegionSpec, at path: String, canvas: PixelSize?) -> PixelRect? {
        let before = issues.count
        var scaleX = 1.0, scaleY = 1.0
        switch spec.units {
        case nil, "pixels": break
        case "relative":
            scaleX = Double(canvas?.width ?? 0)
            scaleY = Double(canvas?.height ?? 0)
        case let units?:
            issues.add(path + ".units", "expected pixels or relative, got \"\(units)\"")
        }
        // A bound far outside any canvas keeps the conversion to Int safe.
        let limit = 1_000_000.0
        var values: [Int] = []
        for (key, value, scale) in [("x", spec.x, scaleX), ("y", spec.y, scaleY),
                                    ("width", spec.width, scaleX), ("height", spec.height, scaleY)] {
            let isSize = key == "width" || key == "height"
            let pixels = value * scale
            if isSize && !(value > 0) {
                issues.add("\(path).\(key)", "must be greater than 0")
            } else if !pixels.isFinite || abs(pixels) > limit {
                issues.add("\(path).\(key)", "out of range (more than \(Int(limit)) pixels)")
            } else {
                values.append(Self.snapDownToEven(pixels))
                if isSize && values.last == 0 && canvas != nil {
                    issues.add("\(path).\(key)", "is under 2 pixels, and sizes snap down to even pixels")
                }
            }
        }
        guard issues.count == before, values.count == 4 else { return nil }
        return PixelRect(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    /// The largest even integer not above `value`.
    static func snapDownToEven(_ value: Double) -> Int {
        let floored = Int(value.rounded(.down))
        return floored - (floored & 1) // two's complement: -3 & 1 == 1, so -3 → -4
    }
}
