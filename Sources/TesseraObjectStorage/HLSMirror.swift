import Foundation
import TesseraTask

/// An HLS output mirrored into the store: FFmpeg writes segments and the playlist into the spool
/// folder (the playlist replaced whole, by rename); each time the playlist changed, the segments
/// it newly lists go up (PUT), then the playlist itself, so no player sees a playlist naming a
/// missing segment. A segment is deleted from the spool once it is in the store (the init
/// segment is kept: FFmpeg may need it again); a `live` window's old segments are deleted from
/// the store as the playlist drops them.
///
/// Threads: only the uploader's thread calls it.
final class HLSMirror: ObjectUploader {
    private let bucket: String
    /// `rec/` for `rec/show.m3u8`: segments go beside the playlist.
    private let keyFolder: String
    private let playlistKey: String
    private let playlistPath: String
    private let folder: String
    private let client: S3Client
    private let deletesExpired: Bool
    private var uploaded = Set<String>()
    private var sentPlaylist: String?
    private var finished = false
    private var failures = 0
    private var retryAt: Double?
    private let schedule = RetrySchedule()
    private(set) var status: ObjectUploadStatus

    init(bucket: String, key: String, playlistPath: String, client: S3Client, deletesExpired: Bool) {
        self.bucket = bucket; self.playlistPath = playlistPath; self.client = client; self.deletesExpired = deletesExpired
        playlistKey = key
        let slash = key.lastIndex(of: "/")
        keyFolder = slash.map { String(key[...$0]) } ?? ""
        folder = (playlistPath as NSString).deletingLastPathComponent
        status = ObjectUploadStatus(file: "s3://\(bucket)/\(key)")
    }

    var isDone: Bool { status.state != .uploading }
    /// The playlist is in the store (a ladder's master may name it now).
    var hasSentPlaylist: Bool { sentPlaylist != nil }
    func finish() { finished = true }
    func giveUp(_ reason: String) {
        guard status.state == .uploading else { return }
        status.state = .failed
        status.reason = reason
    }

    func step(nowSeconds now: Double) -> StepOutcome {
        guard status.state == .uploading else { return .idle }
        guard let data = FileManager.default.contents(atPath: playlistPath) else {
            if finished { giveUp("no playlist was written") }
            return .idle
        }
        let playlist = String(decoding: data, as: UTF8.self)
        let plan = HLSUploadPlan.plan(playlist: playlist, uploaded: uploaded)
        // Before the retry wait: the backlog grows while the store is away, and the status says so.
        status.waitingBytes = plan.segments.reduce(0) { $0 + (SpoolFile.length(path(of: $1)) ?? 0) }
        retryAt = schedule.due(retryAt, nowSeconds: now, finishing: finished)
        if let retryAt, now < retryAt { return .waiting }
        do {
            if let next = plan.segments.first {
                // Missing here: sent by an earlier run of the task (the playlist was fetched from the store).
                if let body = FileManager.default.contents(atPath: path(of: next)) {
                    try client.putObject(bucket, key: keyFolder + next, body: body, contentType: Self.contentType(of: next))
                    status.bytes += Int64(body.count)
                    status.parts += 1
                    if !Self.isInitSegment(next) { try? FileManager.default.removeItem(atPath: path(of: next)) }
                }
                uploaded.insert(next)
                succeeded()
                return .progressed
            }
            if sentPlaylist != playlist {
                try client.putObject(bucket, key: playlistKey, body: data, contentType: "application/vnd.apple.mpegurl")
                sentPlaylist = playlist
                if deletesExpired {
                    for name in plan.expired {
                        try? client.deleteObject(bucket, key: keyFolder + name)
                        uploaded.remove(name)
                    }
                }
                succeeded()
                return .progressed
            }
        } catch {
            if error.isPermanent { giveUp("\(error)"); return .progressed }
            failures += 1
            retryAt = now + schedule.delay(afterFailures: failures, finishing: finished)
            status.reason = "\(error) (retrying)"
            return .progressed
        }
        if finished && HLSUploadPlan.isComplete(playlist) {
            status.state = .uploaded
            status.waitingBytes = 0
        }
        return .idle
    }

    /// Puts a playlist an earlier run of the task left in the store into the spool, so FFmpeg
    /// continues it (after a discontinuity) instead of starting over (a task moved to this node).
    func fetchEarlierPlaylist() throws(S3Failure) {
        guard !FileManager.default.fileExists(atPath: playlistPath),
              let data = try client.getObject(bucket, key: playlistKey, timeoutSeconds: 5) else { return }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: playlistPath, contents: data)
        // Its media segments are in the store; the init segment is written again by this run.
        uploaded.formUnion(HLSUploadPlan.files(in: String(decoding: data, as: UTF8.self)).filter { !Self.isInitSegment($0) })
    }

    private func succeeded() {
        failures = 0
        retryAt = nil
        status.reason = nil
    }

    private func path(of name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// `room_init.mp4`: the fMP4 init segment (media segments are `.m4s` or `.ts`).
    private static func isInitSegment(_ name: String) -> Bool { name.hasSuffix(".mp4") }

    private static func contentType(of name: String) -> String {
        if name.hasSuffix(".ts") { return "video/mp2t" }
        if name.hasSuffix(".m4s") { return "video/iso.segment" }
        return "video/mp4"
    }
}
