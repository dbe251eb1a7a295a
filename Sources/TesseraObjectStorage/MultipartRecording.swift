import Foundation
import TesseraTask

/// One recording (fragmented MP4, MPEG-TS, or live-written Matroska / WebM) sent to the store while it is written: the muxer
/// appends to a spool file, and each `step` sends what `MultipartUploadMachine` says is due —
/// the upload created once there are bytes, a part each time 5 MiB of whole fragments gathered,
/// the rest and the completion once the recording is finished. The spool file is deleted once
/// the object is complete.
///
/// Threads: only the uploader's thread calls it.
final class MultipartRecording: ObjectUploader {
    let bucket: String
    let key: String
    let path: String
    private let client: S3Client
    private let contentType: String
    private var machine: MultipartUploadMachine
    private var boundaries: FragmentBoundaries
    private var finished = false

    convenience init(bucket: String, key: String, path: String, client: S3Client, transportStream: Bool) {
        self.init(bucket: bucket, key: key, path: path, client: client,
                  layout: transportStream ? .transportStream : .fragmentedMP4,
                  contentType: transportStream ? "video/mp2t" : "video/mp4")
    }

    /// `layout` says where the growing spool file may be cut (`FragmentBoundaries`).
    init(bucket: String, key: String, path: String, client: S3Client, layout: FragmentBoundaries.Layout, contentType: String) {
        self.bucket = bucket; self.key = key; self.path = path; self.client = client
        self.contentType = contentType
        machine = MultipartUploadMachine(file: "s3://\(bucket)/\(key)")
        boundaries = FragmentBoundaries(layout)
    }

    var status: ObjectUploadStatus { machine.status }
    var isDone: Bool { machine.status.state != .uploading }

    func finish() { finished = true }
    func giveUp(_ reason: String) { machine.giveUp(reason) }

    func step(nowSeconds now: Double) -> StepOutcome {
        let length = SpoolFile.length(path) ?? 0
        boundaries.advance(length: length) { offset in [UInt8](SpoolFile.read(path, offset: offset, count: 16) ?? Data()) }
        switch machine.next(nowSeconds: now, boundary: boundaries.latest, length: length, finished: finished) {
        case .done: return .idle
        case .idle: return .idle
        case .wait: return .waiting
        case .create:
            do {
                machine.created(uploadId: try client.createMultipartUpload(bucket, key: key, contentType: contentType))
            } catch {
                machine.failed(error, nowSeconds: now)
            }
        case .uploadPart(let number, let bytes):
            guard let data = SpoolFile.read(path, offset: bytes.lowerBound, count: bytes.count), data.count == bytes.count else {
                machine.giveUp("cannot read the spool file \(path)")
                return .progressed
            }
            do {
                let etag = try client.uploadPart(bucket, key: key, uploadId: machine.uploadId!, number: number, body: data)
                machine.uploaded(part: number, etag: etag, bytes: bytes)
            } catch {
                machine.failed(error, nowSeconds: now)
            }
        case .complete(let parts):
            do {
                try client.completeMultipartUpload(bucket, key: key, uploadId: machine.uploadId!, parts: parts)
                machine.completed()
                try? FileManager.default.removeItem(atPath: path)
            } catch {
                machine.failed(error, nowSeconds: now)
            }
        case .verify:
            do {
                let head = try client.headObject(bucket, key: key)
                machine.verified(bytes: head?.bytes, etag: head?.etag)
                if machine.status.state == .uploaded { try? FileManager.default.removeItem(atPath: path) }
            } catch {
                machine.failed(error, nowSeconds: now)
            }
        case .abort:
            if let uploadId = machine.uploadId { try? client.abortMultipartUpload(bucket, key: key, uploadId: uploadId) }
            machine.giveUp("nothing was recorded")
        }
        return .progressed
    }
}

/// What one step of an upload did.
enum StepOutcome { case progressed, waiting, idle }

/// One file or playlist being mirrored into the store; stepped by `UploadCoordinator`'s thread.
protocol ObjectUploader: AnyObject {
    var status: ObjectUploadStatus { get }
    /// Uploaded or failed.
    var isDone: Bool { get }
    /// The muxer has written everything (trailer, `#EXT-X-ENDLIST`): send the rest and close.
    func finish()
    func giveUp(_ reason: String)
    /// Sends at most one request that is due.
    func step(nowSeconds: Double) -> StepOutcome
}
