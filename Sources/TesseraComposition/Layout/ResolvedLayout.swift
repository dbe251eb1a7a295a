/// A layout ready to draw: canvas-pixel rectangles snapped to even values, regions in draw order
/// (lowest `zOrder` first, ties in array order). Built off the hot path; swapped in whole.
public struct ResolvedLayout: Codable, Sendable, Equatable {
    public var canvasWidth: Int
    public var canvasHeight: Int
    public var backgroundColor: YUVColor
    /// Absolute path of an image scaled to the whole canvas, or nil.
    public var backgroundImage: String?
    /// In draw order: first drawn first (bottom).
    public var regions: [ResolvedRegion]
    /// How the template's slots re-flow while the task runs (`layout.fill: present`, template
    /// `speaker`); nil when they never move. `regions` is then the arrangement with every input.
    public var flow: LayoutFlow?

    public init(canvasWidth: Int, canvasHeight: Int, backgroundColor: YUVColor, backgroundImage: String?,
                regions: [ResolvedRegion]) {
        self.canvasWidth = canvasWidth; self.canvasHeight = canvasHeight
        self.backgroundColor = backgroundColor; self.backgroundImage = backgroundImage; self.regions = regions
    }

    /// Every image file the layout draws (region images, placeholders, masks, background), each once.
    public var imagePaths: [String] {
        var seen = Set<String>()
        var paths: [String] = []
        func add(_ path: String?) { if let path, seen.insert(path).inserted { paths.append(path) } }
        add(backgroundImage)
        for region in regions {
            if case .image(let path) = region.content { add(path) }
            add(region.placeholderImage)
            add(region.maskImage)
        }
        return paths
    }
}

public struct ResolvedRegion: Codable, Sendable, Equatable {
    public enum Content: Codable, Sendable, Equatable {
        /// Index into `ResolvedTask.inputs`.
        case input(Int)
        /// Absolute path of a PNG or JPEG.
        case image(path: String)
        /// Text drawn into the region (rendered once per layout, then blended like an image).
        case text(ResolvedText)
    }
    /// Index in the document's `layout.regions` (or in the template's slots), for messages.
    public var documentIndex: Int
    public var content: Content
    /// The region's rectangle on the canvas: even, unclipped (it may lie partly outside).
    public var rect: PixelRect
    /// 0...255, the region's opacity as an 8-bit weight.
    public var alpha: UInt8
    public var renderMode: RenderMode
    public var backgroundColor: YUVColor?
    /// Absolute path of the image shown while the input has no video.
    public var placeholderImage: String?
    /// The part of the source picture (input video or image) shown; nil: all of it.
    public var sourceCrop: SourceCrop?
    /// Rounded-corner radius in canvas pixels; nil: square corners.
    public var cornerRadius: Int?
    /// Absolute path of a PNG whose alpha, scaled to the region, multiplies the region's alpha.
    public var maskImage: String?
    /// What the region shows once its input has no video; nil: the placeholder.
    public var onVideoLoss: VideoLossFallback?

    public init(documentIndex: Int, content: Content, rect: PixelRect, alpha: UInt8, renderMode: RenderMode,
                backgroundColor: YUVColor?, placeholderImage: String?, sourceCrop: SourceCrop? = nil,
                cornerRadius: Int? = nil, maskImage: String? = nil, onVideoLoss: VideoLossFallback? = nil) {
        self.documentIndex = documentIndex; self.content = content; self.rect = rect; self.alpha = alpha
        self.renderMode = renderMode; self.backgroundColor = backgroundColor; self.placeholderImage = placeholderImage
        self.sourceCrop = sourceCrop; self.cornerRadius = cornerRadius; self.maskImage = maskImage
        self.onVideoLoss = onVideoLoss
    }

    /// Whether the region draws through a coverage mask (rounded corners or a mask image).
    public var isMasked: Bool { (cornerRadius ?? 0) > 0 || maskImage != nil }
}

/// `regions[].onVideoLoss`: what an input region shows when its input stops sending video.
public enum VideoLossFallback: String, Codable, Sendable, Equatable, CaseIterable {
    /// The region's `placeholderImage`, or nothing (what lies below shows).
    case placeholder
    /// The input's last picture, frozen, until video returns (ByteRTC keeps the last frame).
    case lastFrame
}

public enum RenderMode: String, Codable, Sendable, Equatable, CaseIterable {
    /// Scale to cover the region, centre the crop.
    case crop
    /// Scale to fit inside the region (letterbox / pillarbox).
    case fit
    /// Fill the region, ignoring the aspect ratio.
    case stretch
}

/// An integer rectangle in canvas pixels.
public struct PixelRect: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var description: String { "\(width)x\(height)@\(x),\(y)" }
}

/// An integer size in pixels.
public struct PixelSize: Codable, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }
}
