import TesseraCore
import TesseraMedia

/// Finds, for each region of the layout being drawn, the picture to show at this output frame:
/// the input's current picture at the region's draw size, else its placeholder, else nothing;
/// image regions from the still images (each size scaled once and cached).
final class PictureSource {
    private var stills: [String: StillImage] = [:]

    /// Loads every image the layout names; an image that cannot be decoded fails the task.
    func load(_ layout: ResolvedLayout) throws {
        for path in layout.imagePaths where stills[path] == nil {
            do {
                stills[path] = try StillImage(path: path)
            } catch {
                throw TaskError.image(path: path, reason: "\(error)")
            }
        }
    }

    /// The layout's background image at canvas size, or nil.
    func background(for layout: ResolvedLayout) throws -> YUVImage? {
        guard let path = layout.backgroundImage, let still = stills[path] else { return nil }
        return try still.image(at: PixelSize(width: layout.canvasWidth, height: layout.canvasHeight))
    }

    /// The picture for `region`, given each input's current frame (nil: no video now).
    func picture(for region: ResolvedRegion, frames: [DecodedVideoFrame?]) throws -> YUVImage? {
        let regionSize = PixelSize(width: region.rect.width, height: region.rect.height)
        switch region.content {
        case .image(let path):
            return try still(path, fittedTo: regionSize, mode: region.renderMode)
        case .input(let index):
            if let frame = frames[index] {
                let size = RegionPlacement.scaledSize(source: frame.displaySize, region: regionSize, mode: region.renderMode)
                // A frame decoded before a layout change lacks the new size: show the region's
                // fallback for that one frame rather than stall the output to scale here.
                if let picture = frame.scaled[size] { return picture }
            }
            guard let placeholder = region.placeholderImage else { return nil }
            return try still(placeholder, fittedTo: regionSize, mode: region.renderMode)
        }
    }

    private func still(_ path: String, fittedTo regionSize: PixelSize, mode: RenderMode) throws -> YUVImage? {
        guard let still = stills[path] else { return nil }
        let size = RegionPlacement.scaledSize(source: still.size, region: regionSize, mode: mode)
        return try still.image(at: size)
    }
}
