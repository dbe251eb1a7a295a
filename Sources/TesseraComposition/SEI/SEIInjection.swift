import Foundation

/// A validated `POST /v1/tasks/{taskId}/sei` body: a `user_data_unregistered` message and how many
/// output frames carry it.
public struct SEIInjection: Codable, Sendable, Equatable {
    public var message: SEIMessage
    public var repeatCount: Int

    public init(message: SEIMessage, repeatCount: Int) { self.message = message; self.repeatCount = repeatCount }

    /// The most payload bytes (after base64 decoding) a message may carry.
    public static let maxPayloadBytes = 4096
    public static let repeatRange = 1...30
    /// Tessera's own UUID, used when a request names none: `b7c3e1d2-5a4f-4e6b-9c8d-7a1f2e3d4c5b`.
    public static let defaultUUID: [UInt8] = SEIUUID.parse("b7c3e1d25a4f4e6b9c8d7a1f2e3d4c5b")!

}

/// The 16-byte UUIDs of `user_data_unregistered` messages, written as 32 hex digits.
public enum SEIUUID {
    /// 32 hex digits (dashes allowed, as in `8-4-4-4-12`) → 16 bytes; nil otherwise.
    public static func parse(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
