import Foundation
import TesseraTask

/// An HLS ladder (a task with `encoder.video.renditions`) mirrored into the store: each
/// rendition's media playlist and its segments by an `HLSMirror` of its own, and the master
/// playlist once every variant's playlist is in the store — so no player reads a master that
/// names a missing playlist — and again whenever the worker rewrites it (a restarted task).
///
/// The status is the output's one file, the master (`s3://BUCKET/live/room.m3u8`), with the
/// variants' bytes, segments and waiting bytes added up: uploaded when every variant is and the
/// master is in the store; failed when any part of the ladder failed, with that reason.
///
/// Threads: only the uploader's thread calls it, like `HLSMirror`.
final class HLSLadderMirror: ObjectUploader {
    private let variants: [HLSMirror]
    private let bucket: String
    private let masterKey: String
    private let masterPath: String
    private let client: S3Client
    private var sentMaster: Data?
    /// The master file as last read is the one in the store.
    private var masterCurrent = false
    private var masterBytes: Int64 = 0
    private var masterFailure: String?
    private var finished = false
    private var failures = 0
    private var retryAt: Double?
    private let schedule = RetrySchedule()

    /// `variants[i]` mirrors rendition i's playlist (`room_rI.m3u8` beside `masterPath`).
    init(bucket: String, masterKey: String, masterPath: String, variants: [HLSMirror], client: S3Client) {
        self.bucket = bucket; self.masterKey = masterKey; self.masterPath = masterPath
        self.variants = variants; self.client = client
    }

    var status: ObjectUploadStatus {
        var status = ObjectUploadStatus(file: "s3://\(bucket)/\(masterKey)")
        status.bytes = masterBytes
        let statuses = variants.map(\.status)
        for variant in statuses {
            status.bytes += variant.bytes
            status.waitingBytes += variant.waitingBytes
            status.parts += variant.parts
        }
        // A failed variant's reason first, else an error being retried.
        status.reason = (statuses.first { $0.state == .failed } ?? statuses.first { $0.reason != nil })?.reason
        if let masterFailure {
            status.state = .failed
            status.reason = masterFailure
        } else if statuses.contains(where: { $0.state == .failed }) {
            status.state = .failed
        } else if finished, masterCurrent, failures == 0, statuses.allSatisfy({ $0.state == .uploaded }) {
            status.state = .uploaded
            status.waitingBytes = 0
        } else if status.reason == nil, failures > 0 {
            status.reason = "the master playlist is not in the store yet (retrying)"
        }
        return status
    }

    var isDone: Bool { status.state != .uploading }

    func finish() {
        finished = true
        for variant in variants { variant.finish() }
    }

    func giveUp(_ reason: String) {
        for variant in variants { variant.giveUp(reason) }
        if sentMaster == nil, masterFailure == nil { masterFailure = reason }
    }

    func step(nowSeconds now: Double) -> StepOutcome {
        guard masterFailure == nil else { return .idle }
        // Each variant sends at most one request per step, as a single playlist's mirror does.
        var outcome = StepOutcome.idle
        for variant in variants {
            switch variant.step(nowSeconds: now) {
            case .progressed: outcome = .progressed
            case .waiting where outcome == .idle: outcome = .waiting
            default: break
            }
        }
        if outcome == .progressed { return .progressed }
        guard variants.allSatisfy(\.hasSentPlaylist) else { return outcome }
        retryAt = schedule.due(retryAt, nowSeconds: now, finishing: finished)
        if let retryAt, now < retryAt { return .waiting }
        guard let master = FileManager.default.contents(atPath: masterPath) else { return outcome }
        masterCurrent = master == sentMaster
        if masterCurrent { return outcome }
        do {
            try client.putObject(bucket, key: masterKey, body: master, contentType: "application/vnd.apple.mpegurl")
            sentMaster = master
            masterCurrent = true
            masterBytes = Int64(master.count)
            failures = 0
            retryAt = nil
        } catch {
            if error.isPermanent {
                masterFailure = "\(error)"
            } else {
                failures += 1
                retryAt = now + schedule.delay(afterFailures: failures, finishing: finished)
            }
        }
        return .progressed
    }
}
