import Foundation
import TesseraComposition

/// The layout currently in force, shared by the output thread (which draws it) and the input
/// threads (which scale to the sizes it needs). An update swaps in a whole new value.
///
/// Threads: any thread reads; `replace` may be called from any thread. Guarded by a lock.
public final class LayoutState: @unchecked Sendable {
    private let lock = NSLock()
    private var current: ResolvedLayout?
    /// Input ids in the order the layout's `.input(index)` refers to.
    private var inputIDs: [String]
    /// Regions not drawn now but maybe soon (an input joining a re-flowing template, the next
    /// speaker): their inputs are scaled for them too, so the change shows a proper picture.
    private var standby: [ResolvedRegion] = []

    public init(_ layout: ResolvedLayout?, inputIDs: [String]) {
        current = layout
        self.inputIDs = inputIDs
    }

    public var layout: ResolvedLayout? { lock.withLock { current } }

    /// Swaps in a new layout and the input order its regions refer to.
    public func replace(with layout: ResolvedLayout?, inputIDs: [String], standby: [ResolvedRegion] = []) {
        lock.withLock {
            current = layout
            self.inputIDs = inputIDs
            self.standby = standby
        }
    }

    /// The sizes input `inputID` is drawn at, for a picture of `displaySize`.
    func drawSizes(inputID: String, displaySize: PixelSize) -> Set<PixelSize> {
        let (layout, ids, standby): (ResolvedLayout?, [String], [ResolvedRegion]) = lock.withLock {
            (current, inputIDs, self.standby)
        }
        guard let layout, let inputIndex = ids.firstIndex(of: inputID) else { return [] }
        var sizes = layout.drawSizes(inputIndex: inputIndex, displaySize: displaySize)
        if !standby.isEmpty {
            var ahead = layout
            ahead.regions = standby
            sizes.formUnion(ahead.drawSizes(inputIndex: inputIndex, displaySize: displaySize))
        }
        return sizes
    }

    /// The largest size input `inputID` is drawn at (the status's `drawSize`); nil when no region shows it.
    func largestDrawSize(inputID: String, displaySize: PixelSize?) -> PixelSize? {
        let (layout, ids) = lock.withLock { (current, inputIDs) }
        guard let layout, let inputIndex = ids.firstIndex(of: inputID) else { return nil }
        return layout.largestDrawSize(inputIndex: inputIndex, displaySize: displaySize)
    }
}
