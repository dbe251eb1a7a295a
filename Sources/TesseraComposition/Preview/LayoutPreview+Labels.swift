import Foundation

extension LayoutPreview {
    /// The longest text quoted in a text region's label.
    static let maxQuotedText = 24

    /// A label per region of `layout`, in draw order: the input id, `image NAME` or
    /// `text: …`, then what shapes it — `crop` (a `sourceCrop`), `r12` (a `cornerRadius`),
    /// `mask NAME` (a `maskImage`). `inputIDs` are the task's input ids in order.
    public static func labels(for layout: ResolvedLayout, inputIDs: [String]) -> [String] {
        layout.regions.map { region in
            var parts: [String] = []
            switch region.content {
            case .input(let index): parts.append(index < inputIDs.count ? inputIDs[index] : "input \(index)")
            case .image(let path): parts.append("image " + (path as NSString).lastPathComponent)
            case .text(let text):
                let flat = text.text.replacingOccurrences(of: "\n", with: " ")
                let quoted = flat.count > maxQuotedText ? String(flat.prefix(maxQuotedText - 3)) + "..." : flat
                // No quotes: the preview's bitmap font has none.
                parts.append("text: \(quoted)")
            }
            if region.sourceCrop != nil { parts.append("crop") }
            if let radius = region.cornerRadius { parts.append("r\(radius)") }
            if let mask = region.maskImage { parts.append("mask " + (mask as NSString).lastPathComponent) }
            return parts.joined(separator: " ")
        }
    }
}
