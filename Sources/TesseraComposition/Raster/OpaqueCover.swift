/// The part of the canvas that opaque regions already paint whole, as a union of rectangles, so the
/// compositor can leave out what would only be painted over: a region wholly under opaque regions
/// above it, and the background wherever an opaque region lies.
///
/// Both questions are answered band by band: the edges of the rectangles cut the area asked about
/// into horizontal bands in which every rectangle either spans the band's full height or misses it,
/// and within a band the covered part of a row is the same merged set of x intervals.
public struct OpaqueCover: Sendable {
    public private(set) var rects: [PixelRect] = []

    public init() {}

    public mutating func add(_ rect: PixelRect) {
        if !rect.isEmpty { rects.append(rect) }
    }

    /// Whether every pixel of `area` lies under some rectangle of the cover.
    public func covers(_ area: PixelRect) -> Bool {
        guard !area.isEmpty else { return true }
        return uncovered(in: area).isEmpty
    }

    /// The parts of `area` no rectangle covers, as rectangles that do not overlap (one per gap per
    /// band; a band's gaps are merged with the band below when they are the same).
    public func uncovered(in area: PixelRect) -> [PixelRect] {
        guard !area.isEmpty else { return [] }
        let touching = rects.map { $0.intersection(area) }.filter { !$0.isEmpty }
        guard !touching.isEmpty else { return [area] }
        var edges = Set([area.y, area.maxY])
        for rect in touching { edges.insert(rect.y); edges.insert(rect.maxY) }
        let rows = edges.sorted()
        var result: [PixelRect] = []
        var open: [Int: PixelRect] = [:]   // gaps of the band above, by their x, still growing
        for (top, bottom) in zip(rows, rows.dropFirst()) {
            let spans = touching.filter { $0.y <= top && $0.maxY >= bottom }.map { ($0.x, $0.maxX) }.sorted { $0.0 < $1.0 }
            var gaps: [(Int, Int)] = []
            var x = area.x
            for (left, right) in spans {
                if left > x { gaps.append((x, left)) }
                x = max(x, right)
            }
            if x < area.maxX { gaps.append((x, area.maxX)) }
            var next: [Int: PixelRect] = [:]
            for (left, right) in gaps {
                if var above = open[left], above.maxX == right {
                    open[left] = nil
                    above.height += bottom - top
                    next[left] = above
                } else {
                    next[left] = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
                }
            }
            result.append(contentsOf: open.values)
            open = next
        }
        result.append(contentsOf: open.values)
        return result.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }
}
