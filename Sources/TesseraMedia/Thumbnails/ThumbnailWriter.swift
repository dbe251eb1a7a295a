import Foundation
import TesseraComposition
import TesseraTask

/// Writes one output's thumbnails as its `ThumbnailPlan` names them: each picture as a numbered
/// JPEG and as the latest, pasted into the current sprite sheet (re-encoded and rewritten at
/// once, so a live scrub bar has the new tile), and the WebVTT track rewritten to cover it.
/// Every file is written aside and renamed over the old one, so a reader (the origin, a player,
/// the uploader) never sees half a file.
///
/// Threads: one thread at a time (the thumbnail thread live, the output thread offline).
final class ThumbnailWriter {
    let plan: ThumbnailPlan
    private let tileEncoder: JPEGEncoder
    private let sheetEncoder: JPEGEncoder
    /// The sheet being filled and its number (the one `plan.tile(of:)` gives the last thumbnail).
    private var sheet: YUVImage?
    private var sheetIndex = -1
    /// Thumbnails written: the track covers these.
    private(set) var count = 0
    /// Every file written, for `removeAll` (an offline run that failed leaves nothing behind).
    private(set) var written: Set<String> = []

    /// JFIF black: luma 0, neutral chroma (full range).
    private static let black = YUVColor(y: 0, u: 128, v: 128)

    init(plan: ThumbnailPlan) throws {
        self.plan = plan
        tileEncoder = try JPEGEncoder(width: plan.settings.width, height: plan.settings.height)
        sheetEncoder = try JPEGEncoder(width: plan.sheetWidth, height: plan.sheetHeight)
        try FileManager.default.createDirectory(atPath: plan.folder, withIntermediateDirectories: true)
    }

    /// Writes thumbnail `index` from `picture`, already at the plan's size in the composite's
    /// colours (it is converted in place to JPEG's).
    func write(_ index: Int, picture: YUVImage) throws {
        JPEGColors.convert(picture)
        let jpeg = try tileEncoder.encode(picture)
        try replace(plan.thumbnailPath(index), with: jpeg)
        try replace(plan.latestPath, with: jpeg)
        let tile = plan.tile(of: index)
        if tile.sheet != sheetIndex || sheet == nil {
            let fresh = YUVImage(width: plan.sheetWidth, height: plan.sheetHeight)
            fresh.fill(Self.black)
            sheet = fresh
            sheetIndex = tile.sheet
        }
        guard let sheet else { return }
        sheet.draw(picture, x: tile.x, y: tile.y)
        try replace(plan.spritePath(tile.sheet), with: try sheetEncoder.encode(sheet))
        count = max(count, index + 1)
        try writeTrack(durationMilliseconds: nil)
    }

    /// The track once more, its last cue ending with the output (`durationMilliseconds`).
    func finish(durationMilliseconds: Int64) throws {
        guard count > 0 else { return }
        try writeTrack(durationMilliseconds: durationMilliseconds)
    }

    /// Deletes every file this writer wrote.
    func removeAll() {
        for path in written { try? FileManager.default.removeItem(atPath: path) }
        written = []
    }

    private func writeTrack(durationMilliseconds: Int64?) throws {
        let text = plan.track(count: count, durationMilliseconds: durationMilliseconds)
        try replace(plan.trackPath, with: Data(text.utf8))
    }

    /// Writes `data` beside `path` and renames it over `path` (atomic on one file system).
    private func replace(_ path: String, with data: Data) throws {
        // Hidden, and not starting with the stem: neither the origin nor a listing takes it.
        let aside = (path as NSString).deletingLastPathComponent + "/." + (path as NSString).lastPathComponent + ".part"
        guard FileManager.default.createFile(atPath: aside, contents: data) else {
            throw MediaError("cannot write \(aside)")
        }
        if rename(aside, path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: aside)
            throw MediaError("cannot rename \(aside) to \(path): \(reason)")
        }
        written.insert(path)
    }
}
