import Dispatch

/// Runs work that blocks a thread — DNS look-ups and file probes while validating, opening a
/// file to check its codecs, spawning a worker — on threads of its own, never on Swift's
/// cooperative pool (two threads here), which the HTTP server and every actor share.
public enum BlockingWork {
    private static let queue = DispatchQueue(label: "tessera.blocking-work", qos: .userInitiated, attributes: .concurrent)

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
