import TesseraTask
import TesseraObjectStorage

/// Before a task with `s3://` outputs is accepted (a `POST`, or a `PATCH` that names a bucket the
/// task did not use), each bucket is asked once whether it exists and takes this node's
/// credentials. An unknown bucket or refused credentials are then a 400 naming the output
/// (`outputs[1].url`), not an output that fails after the task started. A store that does not
/// answer in time is no refusal: the task starts and its uploads wait in the spool and retry.
package enum BucketCheck {
    /// The first output of each bucket not in `known`, by its index in the document.
    package static func buckets(of plan: ResolvedTask, skipping known: Set<String> = []) -> [(index: Int, bucket: String)] {
        var seen = known
        var wanted: [(index: Int, bucket: String)] = []
        for (index, output) in plan.outputs.enumerated() {
            guard let bucket = output.upload?.bucket, seen.insert(bucket).inserted else { continue }
            wanted.append((index, bucket))
        }
        return wanted
    }

    /// The refusal a failed question means, nil when a retry could still succeed (no answer,
    /// a slow or overloaded store).
    package static func refusal(_ failure: S3Failure, bucket: String) -> String? {
        guard failure.isPermanent else { return nil }
        return "the object store refuses bucket \"\(bucket)\" to this node: \(failure)"
    }

    /// Throws `kind` naming the first output whose bucket the store refuses.
    static func check(_ plan: ResolvedTask, storage: StorageSettings?, kind: ServiceError.Kind,
                      skipping known: Set<String> = []) async throws {
        // Without a store the validator has refused every s3:// output already.
        guard let storage else { return }
        let wanted = buckets(of: plan, skipping: known)
        guard !wanted.isEmpty else { return }
        let refusals = try await BlockingWork.run { () -> [(index: Int, message: String)] in
            let client = S3Client(storage)
            defer { client.shutdown() }
            var refusals: [(index: Int, message: String)] = []
            for (index, bucket) in wanted {
                do throws(S3Failure) {
                    try client.checkBucket(bucket)
                } catch {
                    if let message = refusal(error, bucket: bucket) { refusals.append((index, message)) }
                }
            }
            return refusals
        }
        if let first = refusals.first {
            throw ServiceError(kind, message: first.message, path: "outputs[\(first.index)].url")
        }
    }
}
