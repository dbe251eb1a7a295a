import TesseraComposition
extension ResolvedRegion {
    /// Where a resolved region came from. `documentIndex` encodes it: `0...` is the index in
    /// `layout.regions`, and a template slot `s` is stored as `-1 - s` (slot 0 → −1, slot 1 → −2).
    public enum Origin: Sendable, Equatable, Hashable {
        /// `layout.regions[index]`.
        case region(index: Int)
        /// Slot `slot` of the chosen variant of `layout.template`.
        case templateSlot(Int)
    }

    public var origin: Origin {
        documentIndex >= 0 ? .region(index: documentIndex) : .templateSlot(-1 - documentIndex)
    }

    /// The field path of an explicit region (`layout.regions[2]`), or `layout.template` for a slot.
    public var documentPath: String {
        switch origin {
        case .region(let index): return "layout.regions[\(index)]"
        case .templateSlot: return "layout.template"
        }
    }
}
