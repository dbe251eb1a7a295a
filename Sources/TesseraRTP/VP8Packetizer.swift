/// VP8 frames to RTP payloads (RFC 7741), the sending side of `VP8Depacketizer`.
///
/// Every packet carries the 4-byte descriptor
///
///     X=1 R N=0 S R PID=0 | I=1 L=0 T=0 K=0 RSV | M=1 PictureID[14:8] | PictureID[7:0]
///
/// with S=1 only on a frame's first packet. The picture ID is what lets a receiver (or an SFU
/// that switches layers, as mediasoup's VP8 consumer does) tell a lost frame from a late one, so
/// it is always sent, in its 15-bit form so it runs 32768 frames before wrapping.
public struct VP8Packetizer: Sendable {
    public let maxPayloadSize: Int
    /// The picture ID the next frame gets; it increments per frame, modulo 2¹⁵.
    public private(set) var nextPictureID: UInt16

    static let descriptorSize = 4

    /// `initialPictureID`: RFC 7741 §4.2 suggests a random start; only its low 15 bits are used.
    /// A limit below 5 bytes is raised to 5: the descriptor and one byte of frame.
    public init(maxPayloadSize: Int = 1200, initialPictureID: UInt16 = 0) {
        self.maxPayloadSize = max(Self.descriptorSize + 1, maxPayloadSize)
        nextPictureID = initialPictureID & 0x7FFF
    }

    /// The payloads of one frame, in order; empty for an empty frame, which uses no picture ID.
    /// Partitions are not looked into: the frame is cut into equal-sized pieces (all but the last
    /// full), which RFC 7741 §4.4 allows, and PID stays 0.
    public mutating func payloads(frame: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard !frame.isEmpty else { return [] }
        let pictureID = nextPictureID
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
        let descriptor: [UInt8] = [0x80, 0x80, 0x80 | UInt8(pictureID >> 8), UInt8(pictureID & 0xFF)]
        let pieceSize = maxPayloadSize - Self.descriptorSize
        return stride(from: 0, to: frame.count, by: pieceSize).map { start in
            var payload = descriptor
            if start == 0 { payload[0] |= 0x10 }
            payload += UnsafeRawBufferPointer(rebasing: frame[start..<min(start + pieceSize, frame.count)])
            return payload
        }
    }

    public mutating func payloads(frame: [UInt8]) -> [[UInt8]] {
        frame.withUnsafeBytes { payloads(frame: $0) }
    }

    /// A key frame: the frame tag's first bit, the inverse key frame flag P, is 0 (RFC 6386 §9.1).
    public static func isKeyframe(frame: UnsafeRawBufferPointer) -> Bool {
        guard let first = frame.first else { return false }
        return first & 0x01 == 0
    }
}
