import Foundation
import TesseraTask

/// An object sent once every other upload of the task is done: the timeline manifest, which
/// names the other objects, so whoever sees it finds them all complete.
struct LastObject: Sendable {
    var outputURL: String
    var path: String
    var bucket: String
    var key: String
    /// An earlier run's manifest: its spool copy stays, holding its name on this node for later runs.
    var keepsSpool = false
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
            let uploader = MultipartRecording(bucket: location.bucket, key: key, path: location.spoolDirectory + key, client: client,
                                              layout: Self.layout(ofKey: key), contentType: Self.contentType(ofKey: key))
            if let reason = state.refusedBuckets[location.bucket] { uploader.giveUp(reason) }
            var entry = Entry(outputURL: output.url, file: file.url, uploader: uploader)
            entry.perInput = true
            entry.input = file.input
            entry.writerFinished = file.endMicroseconds != nil
            state.entries.append(entry)
        }
        wake.signal()
    }

    /// What is known of earlier runs' per-participant objects once `prepare` ran: names the
    /// recorders must not write over, and the files the status lists before this run's.
    public var earlierRuns: EarlierPerInputFiles { state.withLock { $0.earlierRuns } }

    /// A dead worker's open per-participant uploads completed (any input, any later file), and the
    /// task's inputs' objects already in the store found (`HEAD`, first file and its `.1`, `.2`, …
    /// names until one is missing): a restarted run starts its files after them, never over them.
    func preparePerInput(_ output: ResolvedOutput, location: ObjectLocation, inputs: [String]) {
        let pattern = PerInputKeyPattern(template: location.key), prefix = "s3://\(location.bucket)/"
        let recovered = AbandonedUploads.completePerInput(client, location: location).map { status in
            var status = status
            status.input = pattern.match(String(status.file.dropFirst(prefix.count)))?.input
            return status
        }
        var taken = Set<String>()
        for input in inputs {
            let first = PerInputRecording.fill(location.key, input: input)
            for index in 0..<50 {
                let key = RecordingFileNames.name(first, index: index)
                guard (try? client.headObject(location.bucket, key: key)) != nil else { break }
                taken.insert(location.spoolDirectory + key)
            }
        }
        for status in recovered { taken.insert(location.spoolDirectory + status.file.dropFirst(prefix.count)) }
        state.withLock { state in
            state.settled[output.url, default: []] += recovered
            state.earlierRuns.takenSpoolPaths.formUnion(taken)
            state.earlierRuns.files[output.url, default: []] += recovered.map(\.file)
        }
    }

    /// Sends the file at `path` to `location` after every other upload completed or failed, when
    /// the task ends (listed under `outputURL`'s uploads).
    public func uploadLast(path: String, to location: ObjectLocation, outputURL: String) {
        state.withLock { $0.last = LastObject(outputURL: outputURL, path: path, bucket: location.bucket, key: location.key) }
    }

    /// Also sends, last, the manifests of earlier runs of the task that died before sending
    /// theirs (`paths` in this bucket's spool: a killed worker's, on this node): they list the
    /// files this run recovered, so that run can be mixed again too.
    public func uploadEarlierManifests(_ paths: [String], beside location: ObjectLocation, outputURL: String) {
        let earlier = paths.map { path in
            LastObject(outputURL: outputURL, path: path, bucket: location.bucket, key: location.key(ofSpoolPath: path), keepsSpool: true)
        }
        state.withLock { $0.earlierManifests = earlier }
    }

    /// On the uploader thread, once nothing else is left: the earlier runs' manifests, then this
    /// run's.
    func sendLast() {
        let (earlier, current) = state.withLock { ($0.earlierManifests, $0.last) }
        for last in earlier + (current.map { [$0] } ?? []) { send(last) }
    }

    /// One `PUT`, retried twice.
    private func send(_ last: LastObject) {
        let url = "s3://\(last.bucket)/\(last.key)"
        var status = ObjectUploadStatus(file: url, state: .failed, reason: "no manifest was written at \(last.path)")
        if let body = FileManager.default.contents(atPath: last.path) {
            for attempt in 0..<3 {
                if attempt > 0 { Thread.sleep(forTimeInterval: 0.5) }
                do {
                    try client.putObject(last.bucket, key: last.key, body: body, contentType: "application/json")
                    status = ObjectUploadStatus(file: url, state: .uploaded, bytes: Int64(body.count), parts: 1)
                    if !last.keepsSpool { try? FileManager.default.removeItem(atPath: last.path) }
                    break
                } catch {
                    status = ObjectUploadStatus(file: url, state: .failed, waitingBytes: Int64(body.count), reason: "\(error)")
                }
            }
        }
        state.withLock { state in
            if !last.keepsSpool { state.last = nil }
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

    /// Where a per-participant file's spool copy may be cut, as the recorder writes it: fragmented
    /// MP4 at a `moof`; live Matroska / WebM anywhere. The uploader and the recovery of a dead
    /// worker's upload must agree on it.
    static func layout(ofKey key: String) -> FragmentBoundaries.Layout {
        contentType(ofKey: key) == "video/mp4" ? .fragmentedMP4 : .appendOnly
    }

    static func contentType(ofKey key: String) -> String {
        switch key.split(separator: ".").last?.lowercased() {
        case "webm": return "video/webm"
        case "mkv": return "video/x-matroska"
        default: return "video/mp4"
        }
    }
}

/// Earlier runs' per-participant files, as the restarted run's worker found them in the store.
public struct EarlierPerInputFiles: Sendable, Equatable {
    /// Spool paths whose object exists (or was just completed): taken, as a spool file on disk is.
    public var takenSpoolPaths: Set<String> = []
    /// Per output URL (as given), the `s3://` files completed from a dead worker's uploads.
    public var files: [String: [String]] = [:]
    public init() {}
}
