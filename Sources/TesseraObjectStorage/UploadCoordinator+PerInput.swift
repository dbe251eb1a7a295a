import Foundation
import TesseraTask

/// An object sent once every other upload of the task is done: the timeline manifest, which
/// names the other objects, so whoever sees it finds them all complete.
struct LastObject: Sendable {
    var outputURL: String
    var path: String
    var bucket: String
    var key: String
}

/// Per-participant files (`s3://bucket/room42/{input}.webm`): they appear while the task runs, so
/// the recorders' reports (`RecordedFile`, through the worker) tell the coordinator of each one. A
/// file is sent while it is written, in one multipart upload completed once its recorder finished
/// it: for a spool file the recorder writes bytes that never change (Matroska / WebM live, cut
/// anywhere; MP4 fragmented, cut at a `moof`). The manifest goes last (`uploadLast`).
extension UploadCoordinator {
    /// A per-participant file opened (its upload starts) or finished (the rest is sent, completed). Files of no
    /// `s3://` per-participant output of the plan are not this coordinator's.
    public func perInputFile(_ file: RecordedFile) {
        state.withLock { state in
            if let index = state.entries.firstIndex(where: { $0.perInput && $0.file == file.url }) {
                if file.endMicroseconds != nil { state.entries[index].writerFinished = true }
                return
            }
            guard !state.perInputFiles.contains(file.url),
                  let (output, location, key) = Self.match(file, in: state.perInputOutputs) else { return }
            state.perInputFiles.insert(file.url)
            let contentType = Self.contentType(ofKey: key)
            let uploader = MultipartRecording(bucket: location.bucket, key: key, path: location.spoolDirectory + key, client: client,
                                              layout: contentType == "video/mp4" ? .fragmentedMP4 : .appendOnly,
                                              contentType: contentType)
            if let reason = state.refusedBuckets[location.bucket] { uploader.giveUp(reason) }
            var entry = Entry(outputURL: output.url, file: file.url, uploader: uploader)
            entry.perInput = true
            entry.writerFinished = file.endMicroseconds != nil
            state.entries.append(entry)
        }
        wake.signal()
    }

    /// Sends the file at `path` to `location` after every other upload completed or failed, when
    /// the task ends (listed under `outputURL`'s uploads).
    public func uploadLast(path: String, to location: ObjectLocation, outputURL: String) {
        state.withLock { $0.last = LastObject(outputURL: outputURL, path: path, bucket: location.bucket, key: location.key) }
    }

    /// On the uploader thread, once nothing else is left: one `PUT`, retried twice.
    func sendLast() {
        guard let last = state.withLock({ $0.last }) else { return }
        let url = "s3://\(last.bucket)/\(last.key)"
        var status = ObjectUploadStatus(file: url, state: .failed, reason: "no manifest was written at \(last.path)")
        if let body = FileManager.default.contents(atPath: last.path) {
            for attempt in 0..<3 {
                if attempt > 0 { Thread.sleep(forTimeInterval: 0.5) }
                do {
                    try client.putObject(last.bucket, key: last.key, body: body, contentType: "application/json")
                    status = ObjectUploadStatus(file: url, state: .uploaded, bytes: Int64(body.count), parts: 1)
                    try? FileManager.default.removeItem(atPath: last.path)
                    break
                } catch {
                    status = ObjectUploadStatus(file: url, state: .failed, waitingBytes: Int64(body.count), reason: "\(error)")
                }
            }
        }
        state.withLock { state in
            state.last = nil
            state.settled[last.outputURL, default: []].append(status)
        }
        changed()
    }

    /// The per-participant output `file` belongs to, its location and the file's key: the
    /// output's key with `{input}` filled, or a rejoin's next name of it (`key.1.webm`).
    static func match(_ file: RecordedFile, in outputs: [ResolvedOutput]) -> (ResolvedOutput, ObjectLocation, String)? {
        for output in outputs {
            guard let location = output.upload else { continue }
            let prefix = "s3://\(location.bucket)/"
            guard file.url.hasPrefix(prefix) else { continue }
            let key = String(file.url.dropFirst(prefix.count))
            let first = PerInputRecording.fill(location.key, input: file.input)
            let dot = first.lastIndex(of: ".").map { first.distance(from: first.startIndex, to: $0) }
            let stem = dot.map { String(first.prefix($0)) } ?? first
            let ext = dot.map { String(first.dropFirst($0)) } ?? ""
            if key == first || (key.hasPrefix(stem + ".") && key.hasSuffix(ext)) { return (output, location, key) }
        }
        return nil
    }

    static func contentType(ofKey key: String) -> String {
        switch key.split(separator: ".").last?.lowercased() {
        case "webm": return "video/webm"
        case "mkv": return "video/x-matroska"
        default: return "video/mp4"
        }
    }
}
