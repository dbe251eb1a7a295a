import Foundation
import TesseraTask

/// How the service validates a whole task document: `TaskValidator` off the cooperative pool
/// (validation reads files and may resolve host names), a refusal turned into the `ServiceError`
/// of `kind` with every issue and its path. The registry (a `POST`, a task back from the store)
/// and the server's document routes (`/v1/validate`, `/v1/preview`, a task's document) all
/// validate through it; a `PATCH` is `TaskValidator.validateUpdate`'s.
public enum DocumentValidation {
    public static func validate(_ document: JSONValue, options: ValidationOptions,
                                kind: ServiceError.Kind) async throws -> ResolvedTask {
        try await BlockingWork.run { try result(TaskValidator.validate(value: document, options: options), kind: kind) }
    }

    public static func validate(json: Data, options: ValidationOptions, kind: ServiceError.Kind) async throws -> ResolvedTask {
        try await BlockingWork.run { try result(TaskValidator.validate(json: json, options: options), kind: kind) }
    }

    private static func result(_ result: Result<ResolvedTask, ValidationFailure>, kind: ServiceError.Kind) throws -> ResolvedTask {
        switch result {
        case .success(let resolved): return resolved
        case .failure(let failure): throw ServiceError.invalid(failure, kind: kind)
        }
    }
}
