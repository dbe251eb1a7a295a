import TesseraComposition
import TesseraMedia
import TesseraText

/// Finds, for each region of the layout being drawn, the picture to show at this output frame:
/// the input's current picture at the region's draw size, else its placeholder, else nothing;
/// image regions from the still images (each size scaled once and cached); text regions rendered
/// and region coverage masks built once per change (`TextPictureCache`, `CoverageMaskCache`).
final class PictureSource {
    private var stills: [String: StillImage] = [:]
    /// Text regions rendered and region masks built once per change, not per frame.
    private let texts = TextPictureCache()
    private let masks = CoverageMaskCache()
    /// Resampled stand-ins for pictures decoded before a re-flow; each keeps its frame alive so
    /// the identifier in its key stays that frame's.
    private var resamples: [ResampleKey: (frame: DecodedVideoFrame, image: YUVImage)] = [:]

    private struct ResampleKey: Hashable {
        var frame: ObjectIdentifier
        var size: PixelSize
    }

    /// Loads every image the layout names; an image that cannot be decoded fails the task.
    func load(_ layout: ResolvedLayout) throws { adopt(try Self.decodeImages(of: layout)) }

    /// Decodes every image `layout` names, on any thread (a live update decodes on its caller's
    /// thread, so the output thread never waits on a file).
    static func decodeImages(of layout: ResolvedLayout?) throws -> [String: StillImage] {
        var images: [String: StillImage] = [:]
        for path in layout?.imagePaths ?? [] where images[path] == nil {
            do {
                images[path] = try StillImage(path: path)
            } catch {
                throw TaskError.image(path: path, reason: "\(error)")
            }
        }
        return images
    }

    /// Takes images decoded elsewhere; an image already held keeps its scaled sizes.
    func adopt(_ images: [String: StillImage]) {
        stills.merge(images) { held, _ in held }
    }

    /// The layout's background image at canvas size, or nil.
    func background(for layout: ResolvedLayout) throws -> YUVImage? {
        guard let path = layout.backgroundImage, let still = stills[path] else { return nil }
        return try still.image(at: PixelSize(width: layout.canvasWidth, height: layout.canvasHeight))
    }

    /// What to draw for `region`, given each input's current frame (nil: no video now): its
    /// picture (video, image, rendered text or placeholder) and its coverage mask. `lastFrames`
    /// (each input's last picture, by index) serve regions with `onVideoLoss: lastFrame`.
    func picture(for region: ResolvedRegion, frames: [DecodedVideoFrame?],
                 lastFrames: [DecodedVideoFrame?] = []) throws -> RegionPicture {
        let mask = try masks.mask(for: region) { size in try region.maskImage.flatMap { stills[$0] }?.image(at: size) }
        let regionSize = PixelSize(width: region.rect.width, height: region.rect.height)
        switch region.content {
        case .image(let path):
            return RegionPicture(image: try still(path, fittedTo: regionSize, mode: region.renderMode, crop: region.sourceCrop),
                                 mask: mask)
        case .text(let text):
            return RegionPicture(image: try texts.picture(for: region, text: text), mask: mask)
        case .input(let index):
            var frame = frames[index]
            if frame == nil, region.onVideoLoss == .lastFrame, index < lastFrames.count { frame = lastFrames[index] }
            if let frame {
                let size = RegionPlacement.scaledSize(source: frame.displaySize, crop: region.sourceCrop, region: regionSize,
                                                      mode: region.renderMode)
                if let picture = frame.scaled[size] { return RegionPicture(image: picture, mask: mask) }
                // Decoded before a layout change (a re-flow) that gave it a new size: resample the
                // largest size it has for the few frames until the input scales for the new one.
                if let picture = resampled(frame, to: size) { return RegionPicture(image: picture, mask: mask) }
            }
            guard let placeholder = region.placeholderImage else { return RegionPicture(image: nil, mask: mask) }
            // A placeholder is shown whole: `sourceCrop` is about the input's picture.
            return RegionPicture(image: try still(placeholder, fittedTo: regionSize, mode: region.renderMode, crop: nil),
                                 cropped: false, mask: mask)
        }
    }

    /// A frame's largest scaled picture resampled to `size`, made once per frame and size: a
    /// picture may stay on show for many output frames (a slow input, a held last frame).
    private func resampled(_ frame: DecodedVideoFrame, to size: PixelSize) -> YUVImage? {
        let key = ResampleKey(frame: ObjectIdentifier(frame), size: size)
        if let held = resamples[key] { return held.image }
        guard let largest = frame.scaled.values.max(by: { $0.width * $0.height < $1.width * $1.height }) else { return nil }
        // Only the pictures on show now are worth keeping; a re-flow needs a handful.
        if resamples.count >= 16 { resamples.removeAll() }
        let image = largest.resampled(to: size)
        resamples[key] = (frame, image)
        return image
    }

    private func still(_ path: String, fittedTo regionSize: PixelSize, mode: RenderMode, crop: SourceCrop?) throws -> YUVImage? {
        guard let still = stills[path] else { return nil }
        let size = RegionPlacement.scaledSize(source: still.size, crop: crop, region: regionSize, mode: mode)
        return try still.image(at: size)
    }
}
