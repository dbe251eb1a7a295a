import Foundation
import TesseraTask

/// Multipart uploads of a recording that a dead worker (a crash, a kill, a lost node) left open,
/// completed from the parts already in the store. Parts are cut at fragment boundaries, so the
/// parts make a playable file up to the loss. When the dead worker's spool file is on this node
/// (the task's worker restarted here), its bytes after the last part — up to its last boundary,
/// so the file stays whole — go up as one more part first: what was recorded is not lost. An
/// upload with no part and no spool bytes is aborted.
enum AbandonedUploads {
    /// Completes the open uploads of `firstKey` and its restarts' keys (`room42.mp4`,
    /// `room42.1.mp4`, …); returns what became of each. Store failures leave them for next time.
    static func complete(_ client: S3Client, location: ObjectLocation, layout: FragmentBoundaries.Layout) -> [ObjectUploadStatus] {
        let firstKey = location.key
        // `rec/room42.` for `rec/room42.mp4` (and `rec/room42.1.mp4`, …).
        let stem = String(zip(firstKey, RecordingFileNames.name(firstKey, index: 1)).prefix(while: { $0.0 == $0.1 }).map(\.0))
        return recover(client, location: location, prefix: stem, layout: layout) {
            RecordingFileNames.index(of: $0, first: firstKey) != nil
        }
    }

    /// Completes the open uploads of a per-participant output (`room42/{input}.webm`): every
    /// key of any input, first file or later (`PerInputKeyPattern`), since the inputs the dead
    /// worker recorded are not known here.
    static func completePerInput(_ client: S3Client, location: ObjectLocation) -> [ObjectUploadStatus] {
        let pattern = PerInputKeyPattern(template: location.key)
        return recover(client, location: location, prefix: pattern.prefix, layout: UploadCoordinator.layout(ofKey: location.key)) {
            pattern.match($0) != nil
        }
    }

    /// Each open upload under `prefix` whose key `matches`: completed (with the spool's tail) or
    /// aborted; the spool file of a completed one is deleted (its bytes are in the object).
    private static func recover(_ client: S3Client, location: ObjectLocation, prefix: String, layout: FragmentBoundaries.Layout,
                                matches: (String) -> Bool) -> [ObjectUploadStatus] {
        let bucket = location.bucket
        // Short deadlines: this runs before the mix starts.
        guard let open = try? client.listMultipartUploads(bucket, prefix: prefix, timeoutSeconds: 5) else { return [] }
        var done: [ObjectUploadStatus] = []
        for upload in open where matches(upload.key) {
            let file = "s3://\(bucket)/\(upload.key)"
            let spool = location.spoolDirectory + upload.key
            do {
                var parts = try client.listParts(bucket, key: upload.key, uploadId: upload.uploadId, timeoutSeconds: 5)
                switch AbandonedUploadPlan.plan(parts: parts.map { ($0.number, $0.size) }, boundary: boundary(of: spool, layout: layout)) {
                case .abort:
                    try client.abortMultipartUpload(bucket, key: upload.key, uploadId: upload.uploadId)
                    continue
                case .complete(let tail):
                    if let tail, let data = SpoolFile.read(spool, offset: tail.lowerBound, count: tail.count), data.count == tail.count {
                        let number = parts.count + 1
                        let etag = try client.uploadPart(bucket, key: upload.key, uploadId: upload.uploadId, number: number, body: data)
                        parts.append(S3XML.Part(number: number, etag: etag, size: Int64(data.count)))
                    }
                }
                try client.completeMultipartUpload(bucket, key: upload.key, uploadId: upload.uploadId, parts: parts)
                try? FileManager.default.removeItem(atPath: spool)
                done.append(ObjectUploadStatus(file: file, state: .uploaded, bytes: parts.reduce(0) { $0 + $1.size },
                                               parts: parts.count, recovered: true))
            } catch {
                done.append(ObjectUploadStatus(file: file, state: .failed, reason: "left open by an earlier worker; "
                                               + "completing it failed: \(error)", recovered: true))
            }
        }
        return done
    }

    /// The spool file's last cut point, nil when it is not on this node.
    private static func boundary(of path: String, layout: FragmentBoundaries.Layout) -> Int64? {
        guard let length = SpoolFile.length(path) else { return nil }
        var boundaries = FragmentBoundaries(layout)
        boundaries.advance(length: length) { offset in [UInt8](SpoolFile.read(path, offset: offset, count: 16) ?? Data()) }
        return boundaries.latest
    }
}
