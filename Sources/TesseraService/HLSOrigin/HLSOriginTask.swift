import Foundation
import TesseraTask

/// An HLS output of a task as the origin serves it: the folder of its playlist as the current
/// run writes it (a restarted task's playlist may have moved to `room.1.m3u8`), the key a
/// viewer's URL must carry, and what it writes besides its playlist (renditions, thumbnails).
public struct HLSOriginOutput: Sendable, Equatable {
    /// The output's URL as the document gives it.
    public var url: String
    /// Absolute path of the playlist the worker writes (for `s3://` outputs, its spool copy).
    public var playlistPath: String
    public var viewerKey: String
    /// Renditions of the task's ladder this output writes under its master playlist (0: none).
    public var renditions: Int
    /// The output takes thumbnails.
    public var thumbnails: Bool

    public init(url: String, playlistPath: String, viewerKey: String, renditions: Int = 0, thumbnails: Bool = false) {
        self.url = url; self.playlistPath = playlistPath; self.viewerKey = viewerKey
        self.renditions = renditions; self.thumbnails = thumbnails
    }

    public var playlistName: String { (playlistPath as NSString).lastPathComponent }
    public var folder: String { (playlistPath as NSString).deletingLastPathComponent }
    public func path(of fileName: String) -> String { (folder as NSString).appendingPathComponent(fileName) }
    /// The exact names it writes.
    public var names: HLSOutputNames { HLSOutputNames(playlistName: playlistName, renditions: renditions, thumbnails: thumbnails) }

    /// Whether this output owns `name`: it writes such a name, and no other output of `outputs`
    /// in its folder that writes it too has a longer stem (`room_x.m3u8`'s files are never
    /// `room.m3u8`'s). Two outputs of one stem in one folder (refused by the validator): the first.
    public func owns(_ name: String, among outputs: [HLSOriginOutput]) -> Bool {
        guard names.role(of: name) != nil else { return false }
        let own = (folder as NSString).standardizingPath
        let claimants = (outputs.contains(self) ? outputs : [self] + outputs).filter {
            ($0.folder as NSString).standardizingPath == own && $0.names.role(of: name) != nil
        }
        // `max(by:)` keeps the first of equals.
        return claimants.max { $0.names.stem.count < $1.names.stem.count } == self
    }

    /// The origin's path of the playlist, as the task's status shows it (`playbackPath`).
    public func playbackPath(taskId: String) -> String {
        let id = taskId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? taskId
        return "/v1/tasks/\(id)/hls/\(viewerKey)/\(playlistName)"
    }

    /// The HLS outputs of a run's plan that write files here (not `PUT` over HTTP), with the
    /// viewer key the document gives each (`outputs[].hls.viewerKey`); one without a key (a
    /// document from before keys) is not served. With renditions (and video) every HLS output
    /// writes the whole ladder under a master playlist (`OutputSet.open`).
    public static func list(runPlan: ResolvedTask, document: JSONValue) -> [HLSOriginOutput] {
        let keys = HLSViewerKeys.keys(in: document)
        let renditions = runPlan.video.map { $0.renditions.isEmpty ? 0 : $0.ladder.count } ?? 0
        return runPlan.outputs.compactMap { output in
            guard case .hls(let settings) = output.kind, !settings.overHTTP, let key = keys[output.url] else { return nil }
            return HLSOriginOutput(url: output.url, playlistPath: settings.playlist, viewerKey: key, renditions: renditions,
                                   thumbnails: output.thumbnails != nil)
        }
    }
}

/// Where the origin finds a task's HLS files.
public enum HLSOriginRoute: Sendable {
    /// The task runs (or ran) on this node.
    case here(HLSOriginTask)
    /// Another live node runs it: the request is passed on to its advertised base URL and its
    /// answer sent back (viewers behind a load balancer or a CDN cannot reach that URL).
    case elsewhere(baseURL: String)
}

/// A task's HLS outputs on this node and the progress of their playlists.
public struct HLSOriginTask: Sendable {
    public let taskId: String
    public let outputs: [HLSOriginOutput]
    /// Where the latest thumbnail of each output would be (`STEM_thumb_latest.jpg`), in output order.
    public let latestThumbnails: [String]
    let board: HLSProgressBoard

    public init(taskId: String, outputs: [HLSOriginOutput], latestThumbnails: [String] = [], board: HLSProgressBoard) {
        self.taskId = taskId; self.outputs = outputs; self.latestThumbnails = latestThumbnails; self.board = board
    }

    /// Holds until the worker publishes `awaited` in the playlist at `playlistPath`: true when it
    /// did (or the worker exited), false after `timeoutSeconds`.
    public func wait(playlistPath: String, for awaited: HLSBlockingRequest.Awaited, timeoutSeconds: Double) async -> Bool {
        await board.wait(playlist: playlistPath, for: awaited, timeoutSeconds: timeoutSeconds)
    }

    /// The newest part published of that playlist (nil before the first, or for classic HLS).
    public func newestPart(playlistPath: String) -> HLSPartPosition? { board.newest(playlist: playlistPath) }

    /// `STEM_thumb_latest.jpg` beside each HLS output's playlist and each file output (its path
    /// without the extension), as 33-thumbs' `ThumbnailPlan` names them.
    public static func latestThumbnails(runPlan: ResolvedTask) -> [String] {
        runPlan.outputs.compactMap { output in
            switch output.kind {
            case .hls(let settings) where !settings.overHTTP: settings.stem + "_thumb_latest.jpg"
            case .file(let path, _): (path as NSString).deletingPathExtension + "_thumb_latest.jpg"
            default: nil
            }
        }
    }
}

extension HLSOriginFile {
    /// The file `name` of `output` as the origin serves it under that output's key, or nil: a
    /// path (no `/`, `\`, NUL, `%`), a hidden file, a name the output does not write, or one
    /// that another output of `outputs` in the same folder owns (`HLSOriginOutput.owns`).
    /// (Here, beside the output, so that `HLSOriginFile` needs nothing of a task: the origin's
    /// fuzz target compiles it alone.)
    public static func classify(_ name: String, of output: HLSOriginOutput, among outputs: [HLSOriginOutput]) -> HLSOriginFile? {
        guard output.owns(name, among: outputs) else { return nil }
        return classify(name, names: output.names)
    }
}
