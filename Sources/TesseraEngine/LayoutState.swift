import Foundation
import TesseraCore

/// The layout currently in force, shared by the output thread (which draws it) and the input
/// threads (which scale to the sizes it needs). An update swaps in a whole new value.
///
/// Threads: any thread reads; `replace` may be called from any thread. Guarded by a lock.
public final class LayoutState: @unchecked Sendable {
    private let lock = NSLock()
    private var current: ResolvedLayout?
    /// Input ids in the order the layout's `.input(index)` refers to.
    private var inputIDs: [String]

    public init(_ layout: ResolvedLayout?, inputIDs: [String]) {
        current = layout
        self.inputIDs = inputIDs
    }

    public var layout: ResolvedLayout? { lock.withLock { current } }

    /// Swaps in a new layout and the input order its regions refer to.
    public func replace(with layout: ResolvedLayout?, inputIDs: [String]) {
        lock.withLock {
            current = layout
            self.inputIDs = inputIDs
        }
    }

    /// The sizes input `inputID` is drawn at, for a picture of `displaySize`.
    func drawSizes(inputID: String, displaySize: PixelSize) -> Set<PixelSize> {
        let (layout, ids) = lock.withLock { (current, inputIDs) }
        guard let layout, let inputIndex = ids.firstIndex(of: inputID) else { return [] }
        var sizes = Set<PixelSize>()
        for region in layout.regions {
            guard case .input(let index) = region.content, index == inputIndex else { continue }
            let regionSize = PixelSize(width: region.rect.width, height: region.rect.height)
            sizes.insert(RegionPlacement.scaledSize(source: displaySize, crop: region.sourceCrop, region: regionSize,
                                                    mode: region.renderMode))
        }
        return sizes
    }
}
