/// VP8 over RTP (RFC 7741) to whole VP8 frames.
///
/// The payload descriptor is variable-length and every optional field is bounds-checked; a frame
/// starts only at S=1 with partition index 0, so a frame whose first packet is missing is known
/// to be incomplete without any guessing.
public struct VP8Depacketizer: DescriptorDepacketizer {
    var assembler: VideoFrameAssembler

    public init(maxFrameBytes: Int = 8 << 20) {
        assembler = VideoFrameAssembler(maxFrameBytes: maxFrameBytes)
    }

    /// RFC 7741 §4.2:
    ///
    ///     X R N S R PID(3) | I L T K RSV(4) | M PictureID(7 or 15) | TL0PICIDX | TID(2) Y KEYIDX(5)
    static func descriptor(_ payload: [UInt8], marker: Bool) -> PayloadDescriptor? {
        guard let first = payload.first else { return nil }
        var length = 1
        if first & 0x80 != 0 {
            guard payload.count > length else { return nil }
            let extensions = payload[length]
            length += 1
            if extensions & 0x80 != 0 {
                guard payload.count > length else { return nil }
                length += payload[length] & 0x80 != 0 ? 2 : 1
            }
            if extensions & 0x40 != 0 { length += 1 }
            if extensions & 0x30 != 0 { length += 1 }
        }
        guard length < payload.count else { return nil }
        let startsFrame = first & 0x1F == 0x10  // S=1, partition index 0
        // The VP8 payload header's first bit is the inverse key frame flag.
        return PayloadDescriptor(length: length, startsFrame: startsFrame,
                                 isKeyframe: startsFrame && payload[length] & 0x01 == 0, endsFrame: marker)
    }
}
