import Foundation
import TesseraComposition

/// `sourceCrop`, `cornerRadius` and `maskImage`: which part of the source a region shows and the
/// shape it is cut to.
extension ValidationContext {
    /// The shape fields of one region, each nil when absent (or at fault, with an issue noted).
    mutating func resolveShape(_ spec: RegionSpec, at path: String)
        -> (sourceCrop: SourceCrop?, cornerRadius: Int?, maskImage: String?) {
        var crop: SourceCrop?
        if let given = spec.sourceCrop {
            if spec.text != nil {
                issues.add(path + ".sourceCrop", "a text region has no source picture to crop")
            } else {
                crop = resolveSourceCrop(given, at: path + ".sourceCrop")
            }
        }
        var radius: Int?
        if let value = spec.cornerRadius {
            if !(value.isFinite && value >= 0 && value <= 100_000) {
                issues.add(path + ".cornerRadius", "must be from 0 to 100000 pixels")
            } else if value > 0 {
                // Whole pixels: the mask is exact per pixel, and a fraction would not show.
                radius = Int(value.rounded())
            }
        }
        var mask: String?
        if let given = spec.maskImage { mask = resolveMaskImage(given, at: path + ".maskImage") }
        return (crop, radius, mask)
    }

    /// The smallest crop side accepted, as a fraction of the source: the whole source is scaled so
    /// that the cropped part has the region's size, so a smaller crop would mean scaling a picture
    /// more than 20 times up each way.
    static let minimumCropFraction = 0.05

    /// `sourceCrop`: `x`, `y` from 0, `width`, `height` up to 1, inside the source (`x + width ≤ 1`).
    private mutating func resolveSourceCrop(_ spec: SourceCropSpec, at path: String) -> SourceCrop? {
        guard let x = spec.x, let y = spec.y, let width = spec.width, let height = spec.height else {
            return nil // a missing field is already reported as required
        }
        let before = issues.count
        let minimum = Self.minimumCropFraction
        for (key, value) in [("x", x), ("y", y)] where !(value >= 0 && value < 1) {
            issues.add("\(path).\(key)", "must be from 0 to less than 1 (a fraction of the source)")
        }
        for (key, value) in [("width", width), ("height", height)] where !(value >= minimum && value <= 1) {
            issues.add("\(path).\(key)", "must be from \(minimum) to 1 (a fraction of the source)")
        }
        guard issues.count == before else { return nil }
        // A little slack: 0.1 + 0.9 is 1.0000000000000002 in binary floating point.
        let slack = 1e-9
        if x + width > 1 + slack { issues.add(path + ".width", "x + width must not pass 1 (the source's right edge)") }
        if y + height > 1 + slack { issues.add(path + ".height", "y + height must not pass 1 (the source's bottom edge)") }
        guard issues.count == before else { return nil }
        return SourceCrop(x: x, y: y, width: min(width, 1 - x), height: min(height, 1 - y))
    }

    /// `maskImage`: a PNG (the format with an alpha channel) under the media root.
    private mutating func resolveMaskImage(_ text: String, at path: String) -> String? {
        let ext = URL(fileURLWithPath: text).pathExtension.lowercased()
        guard ext == "png" else {
            issues.add(path, "must be a PNG file (its alpha channel is the mask): \(text)")
            return nil
        }
        return resolveImage(text, at: path)
    }

    /// The largest text or masked region: such a region is drawn through a picture (or mask) of
    /// its own size, so its size bounds the memory it takes — twice the largest canvas each way.
    static let maxDrawnRegionSize = PixelSize(width: 7680, height: 4320)

    /// A text region, or one with `cornerRadius` or `maskImage`, at most `maxDrawnRegionSize`.
    mutating func checkDrawnSize(_ rect: PixelRect, _ spec: RegionSpec, at path: String) {
        guard spec.text != nil || (spec.cornerRadius ?? 0) > 0 || spec.maskImage != nil else { return }
        let limit = Self.maxDrawnRegionSize
        let kind = spec.text != nil ? "a text region" : "a region with cornerRadius or maskImage"
        if rect.width > limit.width { issues.add(path + ".width", "\(kind) is at most \(limit.width) pixels wide") }
        if rect.height > limit.height { issues.add(path + ".height", "\(kind) is at most \(limit.height) pixels high") }
    }
}
