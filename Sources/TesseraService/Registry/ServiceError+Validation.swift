import TesseraCore

extension ServiceError {
    /// A refused document (`InvalidTask` / `InvalidUpdate`, 400): the first issue as `message` and
    /// `path`, every issue under `issues`, so a client can mark each field at once.
    public static func invalid(_ failure: ValidationFailure, code: String) -> ServiceError {
        let first = failure.issues.first
        return ServiceError(code: code, httpStatus: 400, message: first?.message ?? "invalid", path: first?.path,
                            issues: failure.issues.map { ServiceError.Issue(path: $0.path, message: $0.message) })
    }
}
