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

    /// Reads and checks a request body: `payload` (required), `encoding` `utf8` | `base64`
    /// [`utf8`], `uuid` (32 hex digits) [Tessera's], `repeat` 1–30 [1]. Every problem is reported
    /// with its field.
    public static func read(_ data: Data) -> Result<SEIInjection, ValidationFailure> {
        var issues = IssueList()
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch {
            return .failure(ValidationFailure(issues: [ValidationIssue(path: "", message: error.description)]))
        }
        guard var object = JSONObjectReader(value, path: "", issues: &issues) else { return .failure(ValidationFailure(issues: issues.items)) }
        let payload = object.string("payload", required: true, issues: &issues)
        let encoding = object.string("encoding", issues: &issues) ?? "utf8"
        let uuidText = object.string("uuid", issues: &issues)
        let repeatCount = object.int("repeat", issues: &issues) ?? 1
        object.reportUnknownFields(issues: &issues)

        var bytes: [UInt8]?
        switch encoding {
        case "utf8": bytes = payload.map { Array($0.utf8) }
        case "base64":
            if let payload {
                bytes = Data(base64Encoded: payload).map { Array($0) }
                if bytes == nil { issues.add("payload", "is not valid base64") }
            }
        default: issues.add("encoding", "must be utf8 or base64 (got \"\(encoding)\")")
        }
        if let bytes, bytes.count > maxPayloadBytes {
            issues.add("payload", "is \(bytes.count) bytes; at most \(maxPayloadBytes) are allowed")
        }
        if let bytes, bytes.isEmpty { issues.add("payload", "must not be empty") }
        var uuid = defaultUUID
        if let uuidText {
            if let parsed = SEIUUID.parse(uuidText) { uuid = parsed } else { issues.add("uuid", "must be 32 hexadecimal digits") }
        }
        if !repeatRange.contains(repeatCount) { issues.add("repeat", "must be between 1 and 30") }
        guard issues.isEmpty, let bytes else { return .failure(ValidationFailure(issues: issues.items)) }
        return .success(SEIInjection(message: .unregistered(uuid: uuid, data: bytes), repeatCount: repeatCount))
    }
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
