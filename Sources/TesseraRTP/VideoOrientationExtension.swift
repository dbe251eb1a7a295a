import TesseraComposition
/// Coordination of video orientation (CVO, 3GPP TS 26.114 §7.4.5, RFC 7742 §5): mobile senders
/// keep the camera's coded orientation and say in an RTP header extension how to turn each frame.
///
/// The extension's one byte, for `urn:3gpp:video-orientation`:
///
///     bit  7 6 5 4 3 2 1  0
///          0 0 0 0 C F R1 R0
///
/// R1R0 is the turn the receiver applies before display, in clockwise quarter turns (0 none,
/// 1 = 90° CW, 2 = 180°, 3 = 90° CCW, i.e. 270° CW — WebRTC's `kVideoRotation_*` likewise); F (bit 2)
/// says the video on the link is mirrored left to right; C (bit 3) only names the camera. With
/// `urn:3gpp:video-orientation:6` the byte is `R5 R4 R3 R2 C F R1 R0` and the angle is the 6-bit
/// number R1 R0 R5 R4 R3 R2 in 64ths of a turn, rounded here to the nearest quarter turn.
///
/// The mirror is undone in the link picture's own axes, so it comes before the turn, which is
/// `PictureOrientation`'s order.
public struct VideoOrientationExtension: Sendable, Equatable {
    /// The id the SDP's `a=extmap` gave the extension.
    public var id: UInt8
    /// `urn:3gpp:video-orientation:6` (64ths of a turn) rather than quarter turns.
    public var highGranularity: Bool

    public init(id: UInt8, highGranularity: Bool = false) {
        self.id = id; self.highGranularity = highGranularity
    }

    public static let uri = "urn:3gpp:video-orientation"
    public static let highGranularityURI = "urn:3gpp:video-orientation:6"

    /// The orientation a packet signals, or nil when it carries no such element.
    public func orientation(in packet: RTPPacket) -> PictureOrientation? {
        guard let element = packet.headerExtension?.element(id: id), let byte = element.first else { return nil }
        return Self.orientation(byte: byte, highGranularity: highGranularity)
    }

    public static func orientation(byte: UInt8, highGranularity: Bool = false) -> PictureOrientation {
        let mirrored = byte & 0x04 != 0
        guard highGranularity else { return PictureOrientation(quarterTurns: Int(byte & 0x03), mirrored: mirrored) }
        let sixtyFourths = Int(byte & 0x03) << 4 | Int(byte >> 4)
        // 16 sixty-fourths per quarter turn; halves round up (8 → one turn).
        return PictureOrientation(quarterTurns: (sixtyFourths + 8) / 16, mirrored: mirrored)
    }

    /// The byte a sender writes for `orientation` in the quarter-turn form (C = 0): for tests and tools.
    public static func byte(for orientation: PictureOrientation) -> UInt8 {
        UInt8(orientation.quarterTurns) | (orientation.mirrored ? 0x04 : 0)
    }
}
