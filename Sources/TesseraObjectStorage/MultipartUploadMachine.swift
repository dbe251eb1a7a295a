import TesseraTask
/// The life of one recording's multipart upload, with no I/O: its calls return the next action
/// (create the upload, send a part, complete, wait) and take back what the store answered.
///
/// Parts are cut at fragment boundaries once 5 MiB have gathered (`PartCutter`), so at any time
/// the parts in the store make a playable file; a crash loses at most the part in flight. A
/// failure that can pass (store down, timeout, 5xx) is retried on `RetrySchedule`; one that
/// cannot (no such bucket, refused credentials) fails the upload with S3's reason.
///
/// A completion whose answer was lost (the connection reset after the store took it) is sent
/// again and then meets `NoSuchUpload`: the upload is gone because it completed. That answer is
/// checked against the object (`verify`: its size and part count) before the upload is called
/// failed, so a recording that is whole in the store is never reported lost.
public struct MultipartUploadMachine: Sendable {
    public enum Action: Sendable, Equatable {
        case create
        case uploadPart(number: Int, bytes: Range<Int64>)
        case complete([S3XML.Part])
        /// Finished with nothing recorded: the empty upload is dropped.
        case abort
        /// A completion was refused with `NoSuchUpload` after an earlier attempt got no answer:
        /// read the object's size and ETag (`HEAD`) and hand them to `verified`.
        case verify
        /// A retry is due at this time (on the caller's clock).
        case wait(untilSeconds: Double)
        /// Nothing to send until more is recorded.
        case idle
        /// Uploaded or failed: nothing more to do.
        case done
    }

    public private(set) var status: ObjectUploadStatus
    public private(set) var uploadId: String?
    public private(set) var parts: [S3XML.Part] = []
    /// Bytes of the file in the store (the parts so far).
    public private(set) var uploadedBytes: Int64 = 0
    private var failures = 0
    private var retryAt: Double?
    /// A completion was sent and its answer never came (it may have been taken).
    private var completionMayHaveLanded = false
    /// `NoSuchUpload` answered a completion that may have landed: the object decides.
    private var mustVerify = false
    /// The action whose answer is awaited (to tell what a failure was a failure of).
    private var pending: Action?
    /// The recording is finished: retries wait at most `RetrySchedule.finishingCapSeconds`.
    private var finishing = false
    private let schedule: RetrySchedule
    private let minimumPartBytes: Int64

    public init(file: String, schedule: RetrySchedule = RetrySchedule(), minimumPartBytes: Int64 = PartCutter.minimumPartBytes) {
        status = ObjectUploadStatus(file: file)
        self.schedule = schedule
        self.minimumPartBytes = minimumPartBytes
    }

    /// What to do now, `length` bytes recorded, `boundary` the latest fragment boundary,
    /// `finished` once the recording's trailer is written.
    public mutating func next(nowSeconds now: Double, boundary: Int64, length: Int64, finished: Bool) -> Action {
        status.waitingBytes = max(0, length - uploadedBytes)
        guard status.state == .uploading else { return .done }
        finishing = finished
        retryAt = schedule.due(retryAt, nowSeconds: now, finishing: finished)
        if let retryAt, now < retryAt { return .wait(untilSeconds: retryAt) }
        pending = nextAction(boundary: boundary, length: length, finished: finished)
        return pending!
    }

    private func nextAction(boundary: Int64, length: Int64, finished: Bool) -> Action {
        if mustVerify { return .verify }
        guard uploadId != nil else {
            if length > 0 { return .create }
            return finished ? .abort : .idle
        }
        if let range = PartCutter.nextPart(uploaded: uploadedBytes, boundary: boundary, length: length, finished: finished,
                                           minimumPartBytes: minimumPartBytes) {
            return .uploadPart(number: parts.count + 1, bytes: range)
        }
        guard finished else { return .idle }
        return parts.isEmpty ? .abort : .complete(parts)
    }

    public mutating func created(uploadId: String) {
        self.uploadId = uploadId
        succeeded()
    }

    public mutating func uploaded(part number: Int, etag: String, bytes: Range<Int64>) {
        parts.append(S3XML.Part(number: number, etag: etag, size: Int64(bytes.count)))
        uploadedBytes = bytes.upperBound
        status.bytes = uploadedBytes
        status.parts = parts.count
        succeeded()
    }

    /// What `HEAD` found for `.verify`: the object's size and ETag, nil when there is none. A
    /// multipart object's ETag ends `-N`, N its parts: with the size, that is this upload.
    public mutating func verified(bytes: Int64?, etag: String?) {
        let count = parts.count
        if let bytes, bytes == uploadedBytes, let etag, etag.hasSuffix("-\(count)") || etag.hasSuffix("-\(count)\"") {
            completed()
        } else {
            giveUp("NoSuchUpload: the upload vanished before its completion was confirmed, and the object "
                   + (bytes == nil ? "is not in the store" : "in the store is not this recording (\(bytes!) bytes)"))
        }
    }

    /// The upload is complete in the store (or, with nothing recorded, dropped).
    public mutating func completed() {
        succeeded()
        status.state = .uploaded
        status.waitingBytes = 0
    }

    public mutating func failed(_ failure: S3Failure, nowSeconds now: Double) {
        if case .complete? = pending {
            if failure.status == nil {
                completionMayHaveLanded = true
            } else if failure.code == "NoSuchUpload", completionMayHaveLanded {
                mustVerify = true
                status.reason = "\(failure) after a completion whose answer was lost (checking the object)"
                return
            }
        }
        if failure.isPermanent {
            giveUp("\(failure)")
            return
        }
        failures += 1
        retryAt = now + schedule.delay(afterFailures: failures, finishing: finishing)
        status.reason = "\(failure) (retrying)"
    }

    /// Stops for good (the spool overflowed, the task ended with the store still away).
    public mutating func giveUp(_ reason: String) {
        guard status.state == .uploading else { return }
        status.state = .failed
        status.reason = reason
    }

    private mutating func succeeded() {
        failures = 0
        retryAt = nil
        status.reason = nil
    }
}
