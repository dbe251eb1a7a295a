import Foundation

/// Where an output's thumbnails go and when they are taken: pure, so the worker (which writes
/// them), the origin (which serves the latest) and the tests agree on every name and time.
///
/// Names, beside the output (`STEM`: an HLS output's playlist without `.m3u8`, a file output's
/// path without its extension): `STEM_thumb_00001.jpg` for thumbnail 0, taken at the output's
/// time 0, then one per interval; `STEM_thumb_latest.jpg` the newest; sprite sheets
/// `STEM_sprite_00001.jpg` of `columns`×`rows` tiles, left to right, top to bottom; and the
/// WebVTT track `STEM_thumbnails.vtt` that scrub bars read (`#xywh=` into the sheets).
///
/// Times are on the output's timeline as a player sees it: frame N written to the output is at
/// N / fps (a paused span is absent from a recording, so the output counts only frames it took).
public struct ThumbnailPlan: Sendable, Equatable {
    public let settings: ThumbnailSettings
    /// The output's location without extension (an absolute path, or an `s3://` output's spool).
    public let stem: String
    public let fps: Int

    public init(settings: ThumbnailSettings, stem: String, fps: Int) {
        self.settings = settings; self.stem = stem; self.fps = max(fps, 1)
    }

    /// The plan of an output that takes thumbnails, on a task of `fps`; nil for any other.
    public init?(output: ResolvedOutput, fps: Int) {
        guard let settings = output.thumbnails, let stem = Self.stem(of: output.kind) else { return nil }
        self.init(settings: settings, stem: stem, fps: fps)
    }

    /// Every output's plan in `task`, in output order.
    public static func plans(for task: ResolvedTask) -> [ThumbnailPlan] {
        guard let video = task.video else { return [] }
        return task.outputs.compactMap { ThumbnailPlan(output: $0, fps: video.fps) }
    }

    /// The newest thumbnail of the first output of `task` that takes them (what
    /// `/v1/tasks/{id}/thumbnail.jpg` serves); nil when none does.
    public static func latestThumbnailPath(of task: ResolvedTask) -> String? { plans(for: task).first?.latestPath }

    /// An HLS output's playlist stem, a file output's path without its extension.
    public static func stem(of kind: ResolvedOutput.Kind) -> String? {
        switch kind {
        case .hls(let hls): return hls.overHTTP ? nil : hls.stem
        case .file(let path, _):
            let name = (path as NSString).lastPathComponent
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
            return String(path.dropLast(name.distance(from: dot, to: name.endIndex)))
        case .rtmp, .srt, .rtp, .perInput: return nil
        }
    }

    // MARK: Names

    public var folder: String { (stem as NSString).deletingLastPathComponent }
    /// The stem's last component: every file name here starts with it (what the origin serves).
    public var stemName: String { (stem as NSString).lastPathComponent }
    public var latestPath: String { stem + "_thumb_latest.jpg" }
    public var trackPath: String { stem + "_thumbnails.vtt" }
    /// Thumbnail `index` (0 at time 0), numbered from 1 in its name.
    public func thumbnailPath(_ index: Int) -> String { stem + "_thumb_" + Self.number(index + 1) + ".jpg" }
    /// Sprite sheet `sheet` (0 the first), numbered from 1 in its name.
    public func spritePath(_ sheet: Int) -> String { stem + "_sprite_" + Self.number(sheet + 1) + ".jpg" }
    public func spriteName(_ sheet: Int) -> String { (spritePath(sheet) as NSString).lastPathComponent }

    private static func number(_ value: Int) -> String {
        let digits = String(value)
        return digits.count >= 5 ? digits : String(repeating: "0", count: 5 - digits.count) + digits
    }

    // MARK: Times

    /// The interval in milliseconds (times in the track are whole milliseconds).
    public var intervalMilliseconds: Int64 { Int64((settings.intervalSeconds * 1000).rounded()) }

    /// The output frame that thumbnail `index` shows: the first at or after `index` × interval.
    public func frameIndex(ofThumbnail index: Int) -> Int64 {
        let product = Int64(index) * intervalMilliseconds * Int64(fps)
        return (product + 999) / 1000
    }

    /// The thumbnail that output frame `frame` takes, or nil when it takes none.
    public func thumbnail(atFrame frame: Int64) -> Int? {
        guard frame >= 0 else { return nil }
        // The candidate is the last thumbnail due at or before this frame's time.
        let index = Int(frame * 1000 / (intervalMilliseconds * Int64(fps)))
        for candidate in [index, index + 1] where frameIndex(ofThumbnail: candidate) == frame { return candidate }
        return nil
    }

    // MARK: Sprites

    /// Where thumbnail `index` sits: its sheet and its pixel rectangle in that sheet.
    public struct Tile: Sendable, Equatable {
        public let sheet: Int
        public let x: Int
        public let y: Int
        public let width: Int
        public let height: Int
        public init(sheet: Int, x: Int, y: Int, width: Int, height: Int) {
            self.sheet = sheet; self.x = x; self.y = y; self.width = width; self.height = height
        }
    }

    public func tile(of index: Int) -> Tile {
        let perSheet = settings.tilesPerSheet
        let slot = index % perSheet
        return Tile(sheet: index / perSheet, x: slot % settings.columns * settings.width,
                    y: slot / settings.columns * settings.height, width: settings.width, height: settings.height)
    }

    /// A sheet's pixel size: the whole grid, whether or not every tile is drawn yet.
    public var sheetWidth: Int { settings.columns * settings.width }
    public var sheetHeight: Int { settings.rows * settings.height }

    // MARK: Track

    /// The WebVTT track for thumbnails 0..<`count`: thumbnail k covers [k × interval, (k+1) ×
    /// interval), the last one cut at `durationMilliseconds` once the output's length is known.
    public func track(count: Int, durationMilliseconds: Int64? = nil) -> String {
        var text = "WEBVTT\n"
        for index in 0..<max(count, 0) {
            let start = Int64(index) * intervalMilliseconds
            var end = start + intervalMilliseconds
            if let duration = durationMilliseconds, index == count - 1, duration > start { end = min(end, duration) }
            let tile = tile(of: index)
            text += "\n\(Self.timestamp(start)) --> \(Self.timestamp(end))\n"
            text += "\(spriteName(tile.sheet))#xywh=\(tile.x),\(tile.y),\(tile.width),\(tile.height)\n"
        }
        return text
    }

    /// `HH:MM:SS.mmm`.
    public static func timestamp(_ milliseconds: Int64) -> String {
        let ms = max(milliseconds, 0)
        let hours = ms / 3_600_000, minutes = ms / 60_000 % 60, seconds = ms / 1000 % 60, rest = ms % 1000
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = rest < 10 ? "00\(rest)" : rest < 100 ? "0\(rest)" : "\(rest)"
        return "\(two(hours)):\(two(minutes)):\(two(seconds)).\(millis)"
    }
}
