/// The life of one recording's multipart upload, with no I/O: its calls return the next action
/// (create the upload, send a part, complete, wait) and take back what the store answered.
///
/// Parts are cut at fragment boundaries once 5 MiB have gathered (`PartCutter`), so at any time
/// the parts in the store make a playable file; a crash loses at most the part in flight. A
/// failure that can pass (store down, timeout, 5xx) is retried on `RetrySchedule`; one that
/// cannot (no such bucket, refused credentials) fails the upload with S3's reason.
public struct MultipartUploadMachine: Sendable {
    public enum Action: Sendable, Equatable {
        case create
        case uploadPart(number: Int, bytes: Range<Int64>)
        case complete([S3XML.Part])
        /// Finished with nothing recorded: the empty upload is dropped.
        case abort
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
        if let retryAt, now < retryAt { return .wait(untilSeconds: retryAt) }
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

    /// The upload is complete in the store (or, with nothing recorded, dropped).
    public mutating func completed() {
        succeeded()
        status.state = .uploaded
        status.waitingBytes = 0
    }

    public mutating func failed(_ failure: S3Failure, nowSeconds now: Double) {
        if failure.isPermanent {
            giveUp("\(failure)")
            return
        }
        failures += 1
        retryAt = now + schedule.delay(afterFailures: failures)
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
