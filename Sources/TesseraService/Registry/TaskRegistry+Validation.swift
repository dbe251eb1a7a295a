import Foundation
import TesseraTask
import TesseraStore

/// Reading and validating task documents with this node's options, off the cooperative pool.
extension TaskRegistry {
    var validationOptions: ValidationOptions { configuration.validationOptions }

    static func jsonText(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func parse(_ body: Data, kind: ServiceError.Kind) throws -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw ServiceError(kind, message: "\(error)", path: "")
        }
    }

    func validate(_ document: JSONValue, kind: ServiceError.Kind) async throws -> ResolvedTask {
        try await DocumentValidation.validate(document, options: validationOptions, kind: kind)
    }

    /// FLV carries H.264 only: a relay of a file in another codec to RTMP is refused up front,
    /// by a short-lived `tessera probe` process (this server never opens callers' media).
    func checkRelayCodecs(_ task: ResolvedTask) async throws {
        guard let input = task.inputs.first, case .file = input.source else { return }
        let executable = configuration.workerExecutable
        try await BlockingWork.run { try CodecProbe.check(task, executable: executable) }
    }
}

extension ServiceError {
    /// The task store cannot be reached: nothing was changed.
    public static func storeUnavailable(_ error: any Error) -> ServiceError {
        ServiceError(.storeUnavailable, message: "the task store cannot be reached: \(error)",
                     retryAfterSeconds: 5)
    }
}
