import Synchronization
import TesseraComposition

/// The layout currently in force, shared by the output thread (which draws it) and the input
/// threads (which scale to the sizes it needs). An update swaps in a whole new value.
///
/// Threads: any thread reads; `replace` may be called from any thread.
public final class LayoutState: Sendable {
    private struct Current {
        var layout: ResolvedLayout?
        /// Input ids in the order the layout's `.input(index)` refers to.
        var inputIDs: [String]
        /// Regions not drawn now but maybe soon (an input joining a re-flowing template, the next
        /// speaker): their inputs are scaled for them too, so the change shows a proper picture.
        var standby: [ResolvedRegion] = []
    }

    private let current: Mutex<Current>

    public init(_ layout: ResolvedLayout?, inputIDs: [String]) {
        current = Mutex(Current(layout: layout, inputIDs: inputIDs))
    }

    public var layout: ResolvedLayout? { current.withLock { $0.layout } }

    /// Swaps in a new layout and the input order its regions refer to.
    public func replace(with layout: ResolvedLayout?, inputIDs: [String], standby: [ResolvedRegion] = []) {
        current.withLock { $0 = Current(layout: layout, inputIDs: inputIDs, standby: standby) }
    }

    /// The sizes input `inputID` is drawn at, for a picture of `displaySize`.
    func drawSizes(inputID: String, displaySize: PixelSize) -> Set<PixelSize> {
        let now = current.withLock { $0 }
        guard let layout = now.layout, let inputIndex = now.inputIDs.firstIndex(of: inputID) else { return [] }
        var sizes = layout.drawSizes(inputIndex: inputIndex, displaySize: displaySize)
        if !now.standby.isEmpty {
            var ahead = layout
            ahead.regions = now.standby
            sizes.formUnion(ahead.drawSizes(inputIndex: inputIndex, displaySize: displaySize))
        }
        return sizes
    }

    /// The largest size input `inputID` is drawn at (the status's `drawSize`); nil when no region shows it.
    func largestDrawSize(inputID: String, displaySize: PixelSize?) -> PixelSize? {
        let now = current.withLock { $0 }
        guard let layout = now.layout, let inputIndex = now.inputIDs.firstIndex(of: inputID) else { return nil }
        return layout.largestDrawSize(inputIndex: inputIndex, displaySize: displaySize)
    }
}
