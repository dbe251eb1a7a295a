/// VP9 over RTP (RFC 9628) to VP9 frames.
///
/// One output frame per layer frame: a frame ends at its E bit (or the marker bit); one that a
/// new B bit or a new timestamp interrupts lost its end and is dropped. With one spatial layer
/// that is one frame per picture; with several, each spatial layer's frame comes out on its own
/// with the picture's timestamp (decoders take them one by one, as after `vp9_superframe_split`).
/// Keyframe is judged from the descriptor alone (P=0 on the B packet), so an intra-only frame or
/// an upper spatial layer of a key picture also counts.
public struct VP9Depacketizer: DescriptorDepacketizer {
    var assembler: VideoFrameAssembler

    public init(maxFrameBytes: Int = 8 << 20) {
        assembler = VideoFrameAssembler(maxFrameBytes: maxFrameBytes)
    }

    /// RFC 9628 §4.2; B starts a frame, E (or the marker) ends it, P=0 on B means no
    /// inter-picture reference:
    ///
    ///     I P L F B E V Z | M PictureID(7/15) | TID U SID D [TL0PICIDX if F=0] |
    ///     P_DIFF N ×≤3 (F=1, P=1) | scalability structure (V=1)
    static func descriptor(_ payload: [UInt8], marker: Bool) -> PayloadDescriptor? {
        guard let flags = payload.first else { return nil }
        var reader = ByteCursor(bytes: payload, offset: 1)
        let flexible = flags & 0x10 != 0
        if flags & 0x80 != 0 {
            guard let pictureID = reader.next() else { return nil }
            if pictureID & 0x80 != 0 { guard reader.skip(1) else { return nil } }
        }
        if flags & 0x20 != 0 { guard reader.skip(flexible ? 1 : 2) else { return nil } }
        if flexible && flags & 0x40 != 0 {
            var referenceCount = 0
            repeat {
                guard referenceCount < 3, let difference = reader.next() else { return nil }
                referenceCount += 1
                if difference & 0x01 == 0 { break }
            } while true
        }
        if flags & 0x02 != 0 { guard skipScalabilityStructure(&reader) else { return nil } }
        guard reader.offset < payload.count else { return nil }
        let startsFrame = flags & 0x08 != 0
        return PayloadDescriptor(length: reader.offset, startsFrame: startsFrame,
                                 isKeyframe: startsFrame && flags & 0x40 == 0, endsFrame: marker || flags & 0x04 != 0)
    }

    ///     N_S(3) Y G - - - | (WIDTH HEIGHT) × (N_S+1) if Y | N_G if G, then per picture:
    ///     T(3) U R(2) - - followed by R P_DIFF bytes
    private static func skipScalabilityStructure(_ reader: inout ByteCursor) -> Bool {
        guard let header = reader.next() else { return false }
        let spatialLayers = Int(header >> 5) + 1
        if header & 0x10 != 0 { guard reader.skip(4 * spatialLayers) else { return false } }
        if header & 0x08 != 0 {
            guard let pictures = reader.next() else { return false }
            for _ in 0..<pictures {
                guard let picture = reader.next(), reader.skip(Int(picture >> 2 & 0x03)) else { return false }
            }
        }
        return true
    }
}

/// Reads forward through a payload, refusing to step past its end.
struct ByteCursor {
    let bytes: [UInt8]
    var offset: Int

    mutating func next() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count <= bytes.count - offset else { return false }
        offset += count
        return true
    }
}
