import TesseraTask

extension ServiceError {
    /// A refused document (`invalidTask` / `invalidUpdate`): the first issue as `message` and
    /// `path`, every issue under `issues`, so a client can mark each field at once.
    public static func invalid(_ failure: ValidationFailure, kind: Kind) -> ServiceError {
        let first = failure.issues.first
        return ServiceError(kind, message: first?.message ?? "invalid", path: first?.path,
                            issues: failure.issues.map { ServiceError.Issue(path: $0.path, message: $0.message) })
    }
}
