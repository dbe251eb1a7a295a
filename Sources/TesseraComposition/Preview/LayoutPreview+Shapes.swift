/// The borders of a previewed region: plain, dashed (a mask image the preview does not draw) or
/// rounded (a corner radius, through the same `CoverageMask` the mix uses).
extension LayoutPreview {
    /// Dash and gap length of a masked region's border, in pixels.
    static let dashLength = 8

    /// A `borderWidth` border along `rect`'s edges; dashed draws every other `dashLength` run.
    static func drawBorder(rect: PixelRect, color: YUVColor, dashed: Bool, on canvas: YUVImage) {
        let b = borderWidth
        let edges = [PixelRect(x: rect.x, y: rect.y, width: rect.width, height: b),
                     PixelRect(x: rect.x, y: rect.maxY - b, width: rect.width, height: b),
                     PixelRect(x: rect.x, y: rect.y, width: b, height: rect.height),
                     PixelRect(x: rect.maxX - b, y: rect.y, width: b, height: rect.height)]
        for edge in edges {
            guard dashed else { canvas.fill(edge, with: color); continue }
            let horizontal = edge.width > edge.height
            let length = horizontal ? edge.width : edge.height
            for start in stride(from: 0, to: length, by: 2 * dashLength) {
                let run = min(dashLength, length - start)
                canvas.fill(horizontal ? PixelRect(x: edge.x + start, y: edge.y, width: run, height: b)
                                       : PixelRect(x: edge.x, y: edge.y + start, width: b, height: run), with: color)
            }
        }
    }

    /// The translucent fill and the border of a region with rounded corners: the fill through the
    /// region's corner mask, the border through a ring mask (the corner mask minus the same shape
    /// `borderWidth` inside it).
    static func drawRounded(rect: PixelRect, radius: Int, color: YUVColor, on canvas: YUVImage) {
        guard rect.width > 0, rect.height > 0 else { return }
        let outer = CoverageMask(width: rect.width, height: rect.height, cornerRadius: radius)
        let origin = (x: rect.x, y: rect.y)
        let visible = rect.intersection(canvas.bounds)
        canvas.fill(visible, with: color, alpha: fillAlpha, mask: outer, maskOrigin: origin)
        let b = borderWidth
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: rect.width * rect.height)
        defer { ring.deallocate() }
        let inner = rect.width > 2 * b && rect.height > 2 * b
            ? CoverageMask(width: rect.width - 2 * b, height: rect.height - 2 * b, cornerRadius: max(0, radius - b)) : nil
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                var inside = 0
                if let inner, x >= b, y >= b, x < rect.width - b, y < rect.height - b { inside = Int(inner[x - b, y - b]) }
                ring[y * rect.width + x] = UInt8(max(0, Int(outer[x, y]) - inside))
            }
        }
        let border = CoverageMask(width: rect.width, height: rect.height, cornerRadius: 0,
                                  shape: PlaneView(base: ring, stride: rect.width))
        canvas.fill(visible, with: color, alpha: 255, mask: border, maskOrigin: origin)
    }
}
