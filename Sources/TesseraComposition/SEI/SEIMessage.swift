/// One H.264 SEI message (ITU-T H.264 D.1): its payload type and payload bytes. For
/// `user_data_unregistered` (type 5) the payload is a 16-byte UUID then the user's bytes; for
/// `user_data_registered_itu_t_t35` (type 4) a T.35 country code, then the registered data.
public struct SEIMessage: Codable, Sendable, Equatable, Hashable {
    public static let registeredUserData = 4
    public static let unregisteredUserData = 5

    public var payloadType: Int
    public var payload: [UInt8]

    public init(payloadType: Int, payload: [UInt8]) {
        self.payloadType = payloadType
        self.payload = payload
    }

    /// A `user_data_unregistered` message: `uuid` (16 bytes) then `data`.
    public static func unregistered(uuid: [UInt8], data: [UInt8]) -> SEIMessage {
        precondition(uuid.count == 16, "an SEI UUID has 16 bytes")
        return SEIMessage(payloadType: unregisteredUserData, payload: uuid + data)
    }

    /// libx264 writes its version and options as a `user_data_unregistered` message with this
    /// UUID; FFmpeg's decoder reads the x264 build from it to work around old x264 bugs. Carrying
    /// an input's copy into our own x264 output would make decoders apply the wrong workarounds.
    public static let x264InfoUUID: [UInt8] = [0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7,
                                               0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF]

    /// Whether the mix carries this message from an input to the output: user data, registered
    /// or unregistered, except the encoder's own info (above). Timing, recovery-point and other
    /// SEI describe the input's coding, which the mix replaces.
    public var isPassedThrough: Bool {
        switch payloadType {
        case Self.registeredUserData: return !payload.isEmpty
        case Self.unregisteredUserData: return payload.count >= 16 && Array(payload.prefix(16)) != Self.x264InfoUUID
        default: return false
        }
    }

    /// The UUID of a `user_data_unregistered` message.
    public var uuid: [UInt8]? {
        payloadType == Self.unregisteredUserData && payload.count >= 16 ? Array(payload.prefix(16)) : nil
    }
}
