import Foundation
import TesseraComposition

extension SEIInjection {
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
