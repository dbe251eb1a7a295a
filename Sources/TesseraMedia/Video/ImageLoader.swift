import CFFmpeg
import TesseraComposition

/// A still picture (PNG or JPEG) decoded once and kept, scaled on demand to the sizes regions ask
/// for; each size is scaled once and cached. Its own alpha channel is kept.
public final class StillImage {
    public let path: String
    public let size: PixelSize
    private let frame: Frame
    private let scaler = VideoScaler(flags: SWS_BICUBIC | SWS_ACCURATE_RND)
    private var scaled: [PixelSize: YUVImage] = [:]

    public init(path: String) throws {
        self.path = path
        let demuxer = try Demuxer(url: path, protocols: "file", interrupt: InterruptFlag())
        guard let index = demuxer.videoStreamIndex else { throw MediaError("\(path) is not an image") }
        let decoder = try Decoder(stream: demuxer.stream(index), threads: 1)
        let packet = Packet()
        let frame = Frame()
        var decoded = false
        while !decoded, try demuxer.read(into: packet) {
            if packet.pointer.pointee.stream_index != index { continue }
            _ = try decoder.decode(packet, into: frame) { _ in decoded = true; return false }
        }
        if !decoded { _ = try decoder.decode(nil, into: frame) { _ in decoded = true; return false } }
        guard decoded else { throw MediaError("cannot decode image \(path)") }
        self.frame = frame
        size = PixelSize(width: Int(frame.pointer.pointee.width), height: Int(frame.pointer.pointee.height))
    }

    /// The picture at `size` (cached), with an alpha plane when the file has one.
    public func image(at size: PixelSize) throws -> YUVImage {
        if let image = scaled[size] { return image }
        let image = try scaler.scale(frame.pointer, to: size, withAlpha: true)
        scaled[size] = image
        return image
    }
}
