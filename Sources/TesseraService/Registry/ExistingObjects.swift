import TesseraTask
import TesseraObjectStorage

/// Which of the names a new task's `s3://` recordings would take are objects already (written by
/// an earlier task): a new task writes beside them (`room42.1.mp4`), never over them. The
/// service asks the store (`HEAD`) before the task starts, as it asks about the bucket, since a
/// spool file is deleted once uploaded and the local disk knows nothing of another node's.
enum ExistingObjects {
    /// The spool paths (`ObjectLocation.spoolPath` of each name) whose object exists: the output's
    /// own key and its `.1`, `.2`, … names up to the first that does not. A store that does not
    /// answer counts as no object (the task must not wait on it); at most 50 names an output.
    static func spoolPaths(of plan: ResolvedTask, storage: StorageSettings?) async -> Set<String> {
        guard let storage else { return [] }
        let uploads = plan.outputs.compactMap { output -> ObjectLocation? in
            guard let upload = output.upload, case .file = output.kind else { return nil }
            return upload
        }
        guard !uploads.isEmpty else { return [] }
        let found = try? await BlockingWork.run { () -> Set<String> in
            let client = S3Client(storage)
            defer { client.shutdown() }
            var taken: Set<String> = []
            for upload in uploads {
                for index in 0..<50 {
                    let key = RecordingFileNames.name(upload.key, index: index)
                    guard (try? client.headObject(upload.bucket, key: key)) != nil else { break }
                    taken.insert(upload.spoolDirectory + key)
                }
            }
            return taken
        }
        return found ?? []
    }
}
