import Foundation
import TesseraCore

/// The layout currently in force, shared by the output thread (which draws it) and the input
/// threads (which scale to the sizes it needs). An update swaps in a whole new value.
///
/// Threads: any thread reads; `replace` may be called from any thread. Guarded by a lock.
public final class LayoutState: @unchecked Sendable {
    private let lock = NSLock()
    private var current: ResolvedLayout?

    public init(_ layout: ResolvedLayout?) { current = layout }

    public var layout: ResolvedLayout? { lock.withLock { current } }

    public func replace(with layout: ResolvedLayout?) { lock.withLock { current = layout } }

    /// The sizes input `inputIndex` is drawn at, for a picture of `displaySize`.
    func drawSizes(inputIndex: Int, displaySize: PixelSize) -> Set<PixelSize> {
        guard let layout else { return [] }
        var sizes = Set<PixelSize>()
        for region in layout.regions {
            guard case .input(let index) = region.content, index == inputIndex else { continue }
            let regionSize = PixelSize(width: region.rect.width, height: region.rect.height)
            sizes.insert(RegionPlacement.scaledSize(source: displaySize, region: regionSize, mode: region.renderMode))
        }
        return sizes
    }
}
