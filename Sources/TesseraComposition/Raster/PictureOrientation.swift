/// How a decoded picture must be turned to be shown upright: first mirrored left to right (in the
/// coded picture's own axes) when `mirrored`, then rotated clockwise by `quarterTurns` × 90°.
///
/// Phones record landscape-coded frames and say how to show them (an MP4 display matrix, the RTP
/// video-orientation extension) instead of turning the pixels. Tessera turns them itself, so every
/// region, render mode and crop sees the picture as a player would show it.
///
/// Only quarter turns are pixel-exact on a 4:2:0 grid; other angles are rounded to the nearest one.
public struct PictureOrientation: Sendable, Hashable, CustomStringConvertible {
    /// Clockwise quarter turns, 0...3.
    public let quarterTurns: Int
    /// A left-right mirror, applied before the rotation.
    public let mirrored: Bool

    public init(quarterTurns: Int, mirrored: Bool = false) {
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
    }

    /// Drawn as coded.
    public static let upright = PictureOrientation(quarterTurns: 0)

    /// The nearest quarter turn to `degrees` clockwise (any real angle, negative included).
    public init(clockwiseDegrees degrees: Double, mirrored: Bool = false) {
        let turns = degrees.isFinite ? Int((degrees / 90).rounded()) : 0
        self.init(quarterTurns: turns, mirrored: mirrored)
    }

    public var isUpright: Bool { quarterTurns == 0 && !mirrored }

    /// The clockwise rotation in degrees: 0, 90, 180 or 270.
    public var rotationDegrees: Int { quarterTurns * 90 }

    /// A quarter or three-quarter turn exchanges width and height.
    public var swapsAxes: Bool { quarterTurns % 2 == 1 }

    /// The size a coded picture of `size` is shown at.
    public func displayedSize(of size: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: size.height, height: size.width) : size
    }

    /// The coded size that shows as `size`: the same swap, since a swap is its own inverse.
    public func codedSize(displayedAs size: PixelSize) -> PixelSize { displayedSize(of: size) }

    public var description: String { "\(rotationDegrees)°" + (mirrored ? " mirrored" : "") }
}
