import TesseraComposition

/// One decoded input picture, already scaled to every size the current layout draws it at.
///
/// Threads: built whole by an input's thread, then handed over through its `InputChannel` and
/// only read after that; hence `@unchecked Sendable`.
final class DecodedVideoFrame: @unchecked Sendable {
    /// Presentation time on the output timeline, in microseconds.
    let ptsMicroseconds: Int64
    /// When this picture stops being shown if nothing follows it (pts + its duration).
    let endMicroseconds: Int64
    /// The picture's display size (sample aspect ratio applied): what render modes fit and crop.
    let displaySize: PixelSize
    /// The picture scaled to each size a region asked for.
    let scaled: [PixelSize: YUVImage]

    init(ptsMicroseconds: Int64, endMicroseconds: Int64, displaySize: PixelSize, scaled: [PixelSize: YUVImage]) {
        self.ptsMicroseconds = ptsMicroseconds
        self.endMicroseconds = endMicroseconds
        self.displaySize = displaySize
        self.scaled = scaled
    }
}
