/// A failed S3 request, and whether trying again can help: a store that is down, slow or
/// overloaded comes back (retry with back-off); a missing bucket or refused credentials do not
/// (the output fails, with the reason).
public struct S3Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// HTTP status; nil when no answer came (connection refused, timeout).
    public var status: Int?
    /// S3's error `Code` (`NoSuchBucket`, `InvalidAccessKeyId`, …) when the answer had one.
    public var code: String?
    public var message: String

    public init(status: Int?, code: String?, message: String) {
        self.status = status; self.code = code; self.message = message
    }

    /// Codes that no retry will cure.
    static let permanentCodes: Set<String> = [
        "NoSuchBucket", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidBucketName",
        "AllAccessDisabled", "AccountProblem", "NoSuchUpload", "InvalidPart", "InvalidPartOrder", "EntityTooSmall",
    ]

    public var isPermanent: Bool {
        if let code, Self.permanentCodes.contains(code) { return true }
        guard let status else { return false }
        // 408 (timeout) and 429 (slow down) pass; other 4xx are the request's or the account's fault.
        return (400..<500).contains(status) && status != 408 && status != 429
    }

    public var description: String {
        let what = [code, message.isEmpty ? nil : message].compactMap { $0 }.joined(separator: ": ")
        switch (status, what.isEmpty) {
        case (nil, _): return what.isEmpty ? "no answer from the store" : what
        case (let status?, true): return "HTTP \(status)"
        case (let status?, false): return "HTTP \(status) \(what)"
        }
    }
}
