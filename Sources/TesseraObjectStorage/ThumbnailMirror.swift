import Foundation
import TesseraTask

/// An `s3://` output's thumbnails mirrored into the store beside it: the worker writes them into
/// the spool (`ThumbnailPlan`'s names, each replaced whole by rename), and every file new or
/// changed since it was last sent goes up — numbered thumbnails and sprite sheets first, then
/// the latest thumbnail, then the WebVTT track, so a track in the store never names a sheet that
/// is not. Rides along the output's own uploader (`attach`): one entry, one status, which counts
/// these bytes too and is done when both are.
///
/// Threads: only the uploader's thread calls it.
final class ThumbnailMirror: ObjectUploader {
    private let main: any ObjectUploader
    private let plan: ThumbnailPlan
    private let location: ObjectLocation
    private let client: S3Client
    /// Per file name, the modification time and size last sent.
    private var sent: [String: [Int64]] = [:]
    private var bytes: Int64 = 0
    private var count = 0
    private var finished = false
    /// Nothing left to send after `finished`: what the main upload's end waits for.
    private var drained = false
    private var failure: String?
    private var failures = 0
    private var retryAt: Double?
    private let schedule = RetrySchedule()

    /// `uploader` with the output's thumbnails beside it, or `uploader` itself when it has none.
    static func attach(to uploader: (any ObjectUploader)?, output: ResolvedOutput, client: S3Client) -> (any ObjectUploader)? {
        guard let uploader, let location = output.upload, let plan = ThumbnailPlan(output: output, fps: 1) else { return uploader }
        return ThumbnailMirror(main: uploader, plan: plan, location: location, client: client)
    }

    private init(main: any ObjectUploader, plan: ThumbnailPlan, location: ObjectLocation, client: S3Client) {
        self.main = main; self.plan = plan; self.location = location; self.client = client
    }

    var status: ObjectUploadStatus {
        var status = main.status
        status.bytes += bytes
        if let failure, status.state != .failed { status.state = .failed; status.reason = "thumbnails: \(failure)" }
        // The recording is up; the thumbnails' last files are not yet.
        if status.state == .uploaded && !drained { status.state = .uploading }
        return status
    }

    var isDone: Bool { main.isDone && (drained || failure != nil || main.status.state == .failed) }
    func finish() { main.finish(); finished = true }
    func giveUp(_ reason: String) { main.giveUp(reason); if failure == nil && !drained { failure = reason } }

    func step(nowSeconds now: Double) -> StepOutcome {
        let outcome = main.step(nowSeconds: now)
        if outcome == .progressed || failure != nil || drained { return outcome }
        retryAt = schedule.due(retryAt, nowSeconds: now, finishing: finished)
        if let retryAt, now < retryAt { return .waiting }
        guard let (name, stamp) = nextChanged() else {
            if finished && main.isDone { drained = true }
            return outcome
        }
        let path = (plan.folder as NSString).appendingPathComponent(name)
        guard let body = FileManager.default.contents(atPath: path) else { return .progressed }
        do {
            try client.putObject(location.bucket, key: location.key(ofSpoolPath: path), body: body,
                                 contentType: name.hasSuffix(".vtt") ? "text/vtt" : "image/jpeg")
            sent[name] = stamp
            bytes += Int64(body.count)
            failures = 0
            retryAt = nil
        } catch {
            if error.isPermanent { failure = "\(error)"; return .progressed }
            failures += 1
            retryAt = now + schedule.delay(afterFailures: failures, finishing: finished)
        }
        return .progressed
    }

    /// The next file to send: new or changed since sent, in the order that keeps the track last.
    private func nextChanged() -> (String, [Int64])? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: plan.folder)) ?? []
        let stem = plan.stemName
        let track = (plan.trackPath as NSString).lastPathComponent
        let latest = (plan.latestPath as NSString).lastPathComponent
        func rank(_ name: String) -> Int? {
            if name == track { return 2 }
            if name == latest { return 1 }
            if name.hasPrefix(stem + "_thumb_") || name.hasPrefix(stem + "_sprite_") { return name.hasSuffix(".jpg") ? 0 : nil }
            return nil
        }
        let candidates = names.compactMap { name in rank(name).map { (name, $0) } }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        for (name, _) in candidates {
            let path = (plan.folder as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            let stamp = [Int64(modified * 1_000_000), (attributes[.size] as? NSNumber)?.int64Value ?? 0]
            if sent[name] != stamp { return (name, stamp) }
        }
        return nil
    }
}
