import CFFmpeg
import TesseraComposition

/// A decoded picture as a reader hands it to its sink: when it is shown, for how long, its upright
/// size, and a way to scale it. Scaling is left to the sink because only it knows whether the
/// picture will be drawn at all, and at which sizes.
///
/// Valid only during the sink's `picture(_:)` call: the reader reuses the frame afterwards.
public struct DecodedPicture {
    /// On the input's own timeline (loops already added), in microseconds.
    public let ptsMicroseconds: Int64
    public let durationMicroseconds: Int64
    /// True when the duration is the container's own; false when it is a guess (the nominal rate,
    /// or the gap to the previous picture of an RTP stream): the next picture may come sooner or
    /// later than it says.
    public let durationIsKnown: Bool
    /// The upright size, sample aspect ratio applied: what render modes fit and crop.
    public let displaySize: PixelSize
    /// How the picture is turned upright (a file's display matrix, an RTP stream's CVO).
    public let orientation: PictureOrientation
    private let pixels: Pixels

    /// A reader's decoded frame with the scaler for it, or a picture made in memory (a test's
    /// synthetic input), already upright.
    private enum Pixels {
        case frame(UnsafeMutablePointer<AVFrame>, VideoScaler)
        case image(YUVImage)
    }

    init(frame: UnsafeMutablePointer<AVFrame>, scaler: VideoScaler, orientation: PictureOrientation,
         ptsMicroseconds: Int64, durationMicroseconds: Int64, durationIsKnown: Bool) {
        pixels = .frame(frame, scaler)
        self.orientation = orientation
        self.ptsMicroseconds = ptsMicroseconds
        self.durationMicroseconds = durationMicroseconds
        self.durationIsKnown = durationIsKnown
        displaySize = orientation.displayedSize(of: MediaReader.displaySize(of: frame))
    }

    /// The same picture `microseconds` later on its input's timeline (a `sequence` input's file,
    /// placed at its own start).
    public func delayed(by microseconds: Int64) -> DecodedPicture {
        DecodedPicture(self, ptsMicroseconds: ptsMicroseconds + microseconds)
    }

    private init(_ other: DecodedPicture, ptsMicroseconds: Int64) {
        pixels = other.pixels; orientation = other.orientation; self.ptsMicroseconds = ptsMicroseconds
        durationMicroseconds = other.durationMicroseconds; durationIsKnown = other.durationIsKnown; displaySize = other.displaySize
    }

    /// The picture upright at `size`, converted to the output's colours.
    public func scaled(to size: PixelSize) throws -> YUVImage {
        switch pixels {
        case .frame(let frame, let scaler): return try scaler.scale(frame, toDisplayed: size, orientation: orientation)
        case .image(let image): return image.resampled(to: size)
        }
    }

    /// A picture made in memory, upright: what a test feeds a pipeline in place of a decoder's
    /// (`durationIsKnown` false: a guessed duration, as for a file that states none).
    public init(image: YUVImage, ptsMicroseconds: Int64, durationMicroseconds: Int64, durationIsKnown: Bool = true) {
        pixels = .image(image)
        orientation = .upright
        self.ptsMicroseconds = ptsMicroseconds
        self.durationMicroseconds = durationMicroseconds
        self.durationIsKnown = durationIsKnown
        displaySize = PixelSize(width: image.width, height: image.height)
    }
}
