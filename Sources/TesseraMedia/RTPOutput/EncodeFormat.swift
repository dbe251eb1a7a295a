import TesseraTask

extension RTPOutputSettings {
    /// The video encode this output sends.
    var videoEncodeFormat: VideoEncodeFormat {
        switch videoCodec {
        case .h264: return .h264(.baseline)
        case .vp8: return .vp8
        }
    }
}
