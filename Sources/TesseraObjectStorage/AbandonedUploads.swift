import TesseraTask

/// Multipart uploads of a recording that a dead worker (a crash, a kill, a lost node) left open,
/// completed from the parts already in the store. Parts are cut at fragment boundaries, so the
/// parts make a playable file up to the loss; an upload with no part yet is aborted.
enum AbandonedUploads {
    /// Completes the open uploads of `firstKey` and its restarts' keys (`room42.mp4`,
    /// `room42.1.mp4`, …); returns what became of each. Store failures leave them for next time.
    static func complete(_ client: S3Client, bucket: String, firstKey: String) -> [ObjectUploadStatus] {
        // `rec/room42.` for `rec/room42.mp4` (and `rec/room42.1.mp4`, …).
        let stem = String(zip(firstKey, RecordingFileNames.name(firstKey, index: 1)).prefix(while: { $0.0 == $0.1 }).map(\.0))
        // Short deadlines: this runs before the mix starts.
        guard let open = try? client.listMultipartUploads(bucket, prefix: stem, timeoutSeconds: 5) else { return [] }
        var done: [ObjectUploadStatus] = []
        for upload in open where RecordingFileNames.index(of: upload.key, first: firstKey) != nil {
            let file = "s3://\(bucket)/\(upload.key)"
            do {
                let parts = try client.listParts(bucket, key: upload.key, uploadId: upload.uploadId, timeoutSeconds: 5)
                guard !parts.isEmpty else {
                    try client.abortMultipartUpload(bucket, key: upload.key, uploadId: upload.uploadId)
                    continue
                }
                try client.completeMultipartUpload(bucket, key: upload.key, uploadId: upload.uploadId, parts: parts)
                done.append(ObjectUploadStatus(file: file, state: .uploaded, bytes: parts.reduce(0) { $0 + $1.size },
                                               parts: parts.count, recovered: true))
            } catch {
                done.append(ObjectUploadStatus(file: file, state: .failed, reason: "left open by an earlier worker; "
                                               + "completing it failed: \(error)", recovered: true))
            }
        }
        return done
    }
}
