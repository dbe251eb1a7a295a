import TesseraComposition
/// `layout.template`: the inputs not already placed by explicit regions fill the template's slots;
/// `layout.fill`, `layout.audioOnlySlots` and `layout.main` say who and in what order.
extension ValidationContext {
    /// What a template places: the candidates in slot order and its variants in canvas pixels.
    struct TemplatePlan {
        var candidates: [Int]
        var variants: [[PlacedSlot]]
        var fill: LayoutFlow.Fill
        var followsSpeaker: Bool
    }

    /// The template whose first slot follows the loudest input.
    static let speakerTemplate = "speaker"

    /// The plan for `layout.template`, or nil with issues noted. Inputs named by an explicit
    /// region keep that region only ("explicit regions win"); the others fill the slots in input
    /// order, `layout.main` first. Slots are `documentIndex = -1 - slot` (`ResolvedRegion.origin`).
    mutating func templatePlan(_ name: String, spec: LayoutSpec, canvas: PixelSize?, inputIds: [String],
                               explicitInputs: Set<String>, implicit: Bool) -> TemplatePlan? {
        let path = implicit ? "layout" : "layout.template"
        let fill = resolveEnum(spec.fill, at: "layout.fill", default: LayoutFlow.Fill.all)
        guard let template = options.templates.template(named: name) else {
            let names = options.templates.names
            issues.add(path, names.isEmpty
                ? "unknown template \"\(name)\": no templates are installed"
                : "unknown template \"\(name)\"; use \(names.joinedAsChoice())")
            return nil
        }
        // An id listed twice places once; an empty id (already an issue) places nowhere.
        var seen = Set<String>()
        var toPlace = inputIds.indices.filter { index in
            let id = inputIds[index]
            return !explicitInputs.contains(id) && seen.insert(id).inserted
        }
        if let main = spec.main {
            if let index = toPlace.first(where: { inputIds[$0] == main }) {
                toPlace.removeAll { $0 == index }
                toPlace.insert(index, at: 0)
            } else if inputIds.contains(main) {
                issues.add("layout.main", "input \"\(main)\" has an explicit region, so the template does not place it")
            } else {
                issues.add("layout.main", "unknown input \"\(main)\"")
            }
        }
        guard template.variant(for: toPlace.count) != nil else {
            let prefix = implicit ? "with no layout the inputs fill the \(name) template, which" : "\"\(name)\""
            issues.add(path, "\(prefix) places at most \(template.maxInputs) inputs, but \(toPlace.count) need a place; "
                + "give the others explicit layout.regions")
            return nil
        }
        guard let canvas, let fill else { return nil }
        return TemplatePlan(candidates: toPlace,
                            variants: template.variants.map { $0.slots.map { PlacedSlot($0, canvas: canvas) } },
                            fill: fill, followsSpeaker: name == Self.speakerTemplate)
    }

    /// `fill`, `audioOnlySlots` and `main` arrange template slots: without a template they would
    /// silently do nothing, so they are issues.
    mutating func checkFlowFieldsNeedTemplate(_ spec: LayoutSpec) {
        for (key, given) in [("fill", spec.fill != nil), ("audioOnlySlots", spec.audioOnlySlots != nil),
                             ("main", spec.main != nil)] where given {
            issues.add("layout." + key, "arranges template slots; the layout has no template (explicit regions never move)")
        }
    }
}
