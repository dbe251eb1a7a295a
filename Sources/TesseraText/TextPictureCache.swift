import TesseraComposition

/// The rendered pictures of the layout's text regions, one per region (by its document index),
/// rendered when a region first shows and again only when its text, style or size changes: a
/// `PATCH` that changes a score re-renders that one region, at the next frame, and nothing else.
///
/// Threads: owned by the output thread.
public final class TextPictureCache {
    private let renderer = TextRenderer()
    private var entries: [Int: (text: ResolvedText, size: PixelSize, picture: YUVImage)] = [:]

    public init() {}

    /// `text` drawn at `region`'s size.
    public func picture(for region: ResolvedRegion, text: ResolvedText) throws -> YUVImage {
        let size = PixelSize(width: max(2, region.rect.width), height: max(2, region.rect.height))
        if let entry = entries[region.documentIndex], entry.text == text, entry.size == size { return entry.picture }
        let picture = try renderer.render(text, size: size)
        entries[region.documentIndex] = (text, size, picture)
        return picture
    }
}
