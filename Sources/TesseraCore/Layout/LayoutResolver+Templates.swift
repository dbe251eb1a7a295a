/// `layout.template`: the inputs not already placed by explicit regions fill the template's slots.
extension ValidationContext {
    /// Regions for the template's slots, each `documentIndex = -1 - slot` (see
    /// `ResolvedRegion.origin`). Inputs named by an explicit region keep that region only
    /// ("explicit regions win"); the others fill the slots in input order.
    mutating func templateRegions(_ name: String, canvas: PixelSize?, inputIds: [String], explicitInputs: Set<String>,
                                  implicit: Bool) -> [(zOrder: Int, region: ResolvedRegion)] {
        let path = implicit ? "layout" : "layout.template"
        guard let template = options.templates.template(named: name) else {
            let names = options.templates.names
            issues.add(path, names.isEmpty
                ? "unknown template \"\(name)\": no templates are installed"
                : "unknown template \"\(name)\"; use \(names.joinedAsChoice())")
            return []
        }
        // An id listed twice places once; an empty id (already an issue) places nowhere.
        var seen = Set<String>()
        let toPlace = inputIds.indices.filter { index in
            let id = inputIds[index]
            return !explicitInputs.contains(id) && seen.insert(id).inserted
        }
        guard let variant = template.variant(for: toPlace.count) else {
            let prefix = implicit ? "with no layout the inputs fill the \(name) template, which" : "\"\(name)\""
            issues.add(path, "\(prefix) places at most \(template.maxInputs) inputs, but \(toPlace.count) need a place; "
                + "give the others explicit layout.regions")
            return []
        }
        guard let canvas else { return [] }
        return zip(toPlace, variant.slots.indices).map { inputIndex, slot in
            let spec = variant.slots[slot]
            let region = ResolvedRegion(documentIndex: -1 - slot, content: .input(inputIndex),
                                        rect: spec.rect(canvas: canvas), alpha: 255, renderMode: spec.renderMode,
                                        backgroundColor: spec.backgroundColor, placeholderImage: nil)
            return (spec.zOrder, region)
        }
    }
}
