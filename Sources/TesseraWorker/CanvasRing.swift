import TesseraComposition

/// The output pictures a task composes into, reused frame after frame. The encoder holds a
/// reference to the picture it was given (no copy) for as long as it needs it; the next frame is
/// composed into a picture nobody else holds, made anew only when every one is still held.
///
/// Threads: the output thread only.
final class CanvasRing {
    private var canvases: [YUVImage] = []
    private let width: Int, height: Int
    /// Beyond this many held at once, the oldest is given up on (the ring keeps no more).
    private static let capacity = 4

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// A canvas no encoder or output still holds.
    func next() -> YUVImage {
        for index in canvases.indices where isKnownUniquelyReferenced(&canvases[index]) { return canvases[index] }
        let canvas = YUVImage(width: width, height: height)
        if canvases.count >= Self.capacity { canvases.removeFirst() }
        canvases.append(canvas)
        return canvas
    }

    /// How many canvases were made (for tests and the benchmark).
    var count: Int { canvases.count }
}
