import TesseraTask
import Testing
import TesseraObjectStorage

/// What the uploads do when the store fails under them (issue 30): a completion whose answer was
/// lost is checked against the object instead of being called failed; a task that has ended
/// retries within a second; and the output's own status names a refusal at once.
@Suite struct UploadFaultTests {
    static let mib: Int64 = 1 << 20
    let reset = S3Failure(status: nil, code: nil, message: "cannot reach the store: connection reset by peer")
    let noSuchUpload = S3Failure(status: 404, code: "NoSuchUpload", message: "The specified upload does not exist.")

    /// A machine with two parts sent and the recording finished, at its completion.
    func atCompletion() -> MultipartUploadMachine {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        machine.created(uploadId: "u1")
        _ = machine.next(nowSeconds: 0, boundary: 6 * Self.mib, length: 6 * Self.mib, finished: false)
        machine.uploaded(part: 1, etag: "\"e1\"", bytes: 0..<(6 * Self.mib))
        _ = machine.next(nowSeconds: 1, boundary: 6 * Self.mib, length: 7 * Self.mib, finished: true)
        machine.uploaded(part: 2, etag: "\"e2\"", bytes: (6 * Self.mib)..<(7 * Self.mib))
        return machine
    }

    @Test func aCompletionWhoseAnswerWasLostIsCheckedAgainstTheObject() {
        var machine = atCompletion()
        guard case .complete = machine.next(nowSeconds: 2, boundary: 0, length: 7 * Self.mib, finished: true) else {
            Issue.record("expected complete"); return
        }
        machine.failed(reset, nowSeconds: 2)
        // Finished: the retry waits at most a second, however many failures came before.
        guard case .wait(let until) = machine.next(nowSeconds: 2.1, boundary: 0, length: 7 * Self.mib, finished: true),
              until <= 3 else { Issue.record("expected a short wait"); return }
        guard case .complete = machine.next(nowSeconds: 3, boundary: 0, length: 7 * Self.mib, finished: true) else {
            Issue.record("expected complete again"); return
        }
        machine.failed(noSuchUpload, nowSeconds: 3)
        #expect(machine.status.state == .uploading)
        #expect(machine.next(nowSeconds: 3, boundary: 0, length: 7 * Self.mib, finished: true) == .verify)
        machine.verified(bytes: 7 * Self.mib, etag: "\"0123456789abcdef0123456789abcdef-2\"")
        #expect(machine.status.state == .uploaded)
        #expect(machine.status.reason == nil && machine.status.waitingBytes == 0)
    }

    @Test func anObjectThatIsNotThisRecordingFailsTheUpload() {
        for (bytes, etag) in [(nil, nil), (7 * Self.mib, "\"abc-3\""), (5 * Self.mib, "\"abc-2\""), (7 * Self.mib, "\"abc\"")]
            as [(Int64?, String?)] {
            var machine = atCompletion()
            _ = machine.next(nowSeconds: 2, boundary: 0, length: 7 * Self.mib, finished: true)
            machine.failed(reset, nowSeconds: 2)
            _ = machine.next(nowSeconds: 4, boundary: 0, length: 7 * Self.mib, finished: true)
            machine.failed(noSuchUpload, nowSeconds: 4)
            #expect(machine.next(nowSeconds: 4, boundary: 0, length: 7 * Self.mib, finished: true) == .verify)
            machine.verified(bytes: bytes, etag: etag)
            #expect(machine.status.state == .failed)
            #expect(machine.status.reason?.contains("NoSuchUpload") == true)
        }
    }

    @Test func noSuchUploadWithoutALostAnswerFailsAtOnce() {
        var machine = atCompletion()
        _ = machine.next(nowSeconds: 2, boundary: 0, length: 7 * Self.mib, finished: true)
        machine.failed(noSuchUpload, nowSeconds: 2)
        #expect(machine.status.state == .failed)
    }

    @Test func aLostAnswerToAPartIsJustRetried() {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        machine.created(uploadId: "u1")
        #expect(machine.next(nowSeconds: 0, boundary: 6 * Self.mib, length: 6 * Self.mib, finished: false)
                == .uploadPart(number: 1, bytes: 0..<(6 * Self.mib)))
        machine.failed(reset, nowSeconds: 0)
        #expect(machine.next(nowSeconds: 1, boundary: 6 * Self.mib, length: 6 * Self.mib, finished: false)
                == .uploadPart(number: 1, bytes: 0..<(6 * Self.mib)))
    }

    @Test func aLongBackOffIsCutShortWhenTheTaskEnds() {
        var machine = MultipartUploadMachine(file: "s3://b/room.mp4")
        machine.created(uploadId: "u1")
        for second in 0..<6 { machine.failed(S3Failure(status: 503, code: "SlowDown", message: ""), nowSeconds: Double(second)) }
        #expect(machine.next(nowSeconds: 5, boundary: 0, length: 100, finished: false) == .wait(untilSeconds: 13))
        #expect(machine.next(nowSeconds: 5, boundary: 0, length: 100, finished: true) == .wait(untilSeconds: 6))
        let schedule = RetrySchedule()
        #expect((0...7).map { schedule.delay(afterFailures: $0, finishing: true) } == [0, 0.5, 1, 1, 1, 1, 1, 1])
        #expect(schedule.due(20, nowSeconds: 10, finishing: false) == 20)
        #expect(schedule.due(20, nowSeconds: 10, finishing: true) == 11)
        #expect(schedule.due(10.5, nowSeconds: 10, finishing: true) == 10.5)
    }

    @Test func theOutputNamesARefusalAtOnceAndARetryWhileItLasts() {
        let file = "s3://rec/room.mp4"
        #expect(UploadVerdict([]) == UploadVerdict())
        #expect(UploadVerdict([ObjectUploadStatus(file: file)]) == UploadVerdict())
        let refused = UploadVerdict([ObjectUploadStatus(file: file, state: .failed, reason: "HTTP 403 AccessDenied: Access Denied")])
        #expect(refused.refusal == "upload to s3://rec/room.mp4 failed: HTTP 403 AccessDenied: Access Denied")
        #expect(refused.retrying == nil)
        let retrying = UploadVerdict([ObjectUploadStatus(file: file, reason: "HTTP 503 SlowDown: reduce (retrying)")])
        #expect(retrying.refusal == nil && retrying.retrying == "upload to s3://rec/room.mp4: HTTP 503 SlowDown: reduce (retrying)")
        // An earlier worker's upload that could not be completed is its own story, not this output's.
        let recovered = ObjectUploadStatus(file: file, state: .failed, reason: "left open", recovered: true)
        #expect(UploadVerdict([recovered, ObjectUploadStatus(file: "s3://rec/room.1.mp4")]) == UploadVerdict())
        #expect(UploadVerdict([ObjectUploadStatus(file: file, state: .uploaded), recovered]) == UploadVerdict())
    }
}
