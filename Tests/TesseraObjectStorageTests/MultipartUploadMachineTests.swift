import Testing
import TesseraObjectStorage

/// A recording's multipart upload driven through its life with no store: each call's action
/// and what the status says.
@Suite struct MultipartUploadMachineTests {
    static let mib: Int64 = 1 << 20

    @Test func uploadsPartsWhileRecordingAndCompletesAtTheEnd() {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        #expect(machine.next(nowSeconds: 0, boundary: 0, length: 0, finished: false) == .idle)
        #expect(machine.next(nowSeconds: 0, boundary: 0, length: 1000, finished: false) == .create)
        machine.created(uploadId: "u1")
        #expect(machine.next(nowSeconds: 1, boundary: 3 * Self.mib, length: 4 * Self.mib, finished: false) == .idle)
        #expect(machine.next(nowSeconds: 2, boundary: 6 * Self.mib, length: 7 * Self.mib, finished: false)
                == .uploadPart(number: 1, bytes: 0..<(6 * Self.mib)))
        machine.uploaded(part: 1, etag: "\"e1\"", bytes: 0..<(6 * Self.mib))
        #expect(machine.status.parts == 1 && machine.status.bytes == 6 * Self.mib)
        #expect(machine.next(nowSeconds: 3, boundary: 6 * Self.mib, length: 8 * Self.mib, finished: true)
                == .uploadPart(number: 2, bytes: (6 * Self.mib)..<(8 * Self.mib)))
        machine.uploaded(part: 2, etag: "\"e2\"", bytes: (6 * Self.mib)..<(8 * Self.mib))
        guard case .complete(let parts) = machine.next(nowSeconds: 4, boundary: 0, length: 8 * Self.mib, finished: true) else {
            Issue.record("expected complete")
            return
        }
        #expect(parts.map(\.number) == [1, 2])
        machine.completed()
        #expect(machine.status.state == .uploaded)
        #expect(machine.next(nowSeconds: 5, boundary: 0, length: 8 * Self.mib, finished: true) == .done)
    }

    @Test func aStoreThatIsDownIsRetriedWithBackOffAndTheSpoolGrows() {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        machine.created(uploadId: "u1")
        let down = S3Failure(status: nil, code: nil, message: "cannot reach the store")
        #expect(!down.isPermanent)
        machine.failed(down, nowSeconds: 10)
        #expect(machine.next(nowSeconds: 10.2, boundary: 6 * Self.mib, length: 9 * Self.mib, finished: false) == .wait(untilSeconds: 10.5))
        #expect(machine.status.waitingBytes == 9 * Self.mib)
        #expect(machine.status.reason?.contains("retrying") == true)
        machine.failed(down, nowSeconds: 10.5)
        #expect(machine.next(nowSeconds: 11, boundary: 0, length: 0, finished: false) == .wait(untilSeconds: 11.5))
        #expect(machine.next(nowSeconds: 11.5, boundary: 6 * Self.mib, length: 9 * Self.mib, finished: false)
                == .uploadPart(number: 1, bytes: 0..<(6 * Self.mib)))
        machine.uploaded(part: 1, etag: "e", bytes: 0..<(6 * Self.mib))
        #expect(machine.status.reason == nil)
        #expect(machine.status.state == .uploading)
    }

    @Test func aMissingBucketOrRefusedCredentialsFailAtOnceWithTheReason() {
        for failure in [S3Failure(status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist"),
                        S3Failure(status: 403, code: "InvalidAccessKeyId", message: "no such key")] {
            var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
            machine.failed(failure, nowSeconds: 0)
            #expect(machine.status.state == .failed)
            #expect(machine.status.reason?.contains(failure.code!) == true)
            #expect(machine.next(nowSeconds: 100, boundary: 0, length: 10, finished: true) == .done)
        }
        #expect(!S3Failure(status: 503, code: "SlowDown", message: "").isPermanent)
        #expect(!S3Failure(status: 429, code: nil, message: "").isPermanent)
    }

    @Test func nothingRecordedIsDropped() {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        #expect(machine.next(nowSeconds: 0, boundary: 0, length: 0, finished: true) == .abort)
    }
}
