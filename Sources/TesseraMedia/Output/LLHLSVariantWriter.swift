import CFFmpeg
import Foundation
import Synchronization
import TesseraHLS
import TesseraTask

/// Told after each LL-HLS part is on disk and listed: the media playlist's path, the part's
/// segment (media sequence number) and its index in that segment. `WorkerMain` turns it into a
/// worker event that `serve` answers blocked playlist reloads with.
public typealias HLSPartPublished = @Sendable (_ playlistPath: String, _ mediaSequence: Int, _ partIndex: Int) -> Void

/// What a ladder's variants share: the wall-clock time of the task's pts 0 (each segment's
/// `EXT-X-PROGRAM-DATE-TIME`, the same in every variant) and each variant's last part (the
/// others' `EXT-X-RENDITION-REPORT`).
final class LLHLSBoard: Sendable {
    private struct State {
        var wallClockAtZeroMilliseconds: Int64?
        var reports: [Int: LLHLSRenditionReport] = [:]
    }

    private let state = Mutex(State())

    /// Milliseconds since 1970 of the frame at `pts` (µs); the first call fixes the base.
    func programDateTime(pts: Int64) -> Int64 {
        state.withLock { state in
            let base = state.wallClockAtZeroMilliseconds ?? (Int64(Date().timeIntervalSince1970 * 1000) - pts / 1000)
            state.wallClockAtZeroMilliseconds = base
            return base + pts / 1000
        }
    }

    func publish(_ report: LLHLSRenditionReport?, variant: Int) {
        guard let report else { return }
        state.withLock { $0.reports[variant] = report }
    }

    func reports(except variant: Int) -> [LLHLSRenditionReport] {
        state.withLock { state in state.reports.keys.sorted().filter { $0 != variant }.compactMap { state.reports[$0] } }
    }
}

/// One LL-HLS media playlist written to disk: the rendition's video and the AAC muxed into CMAF
/// parts (`CMAFFragmentWriter`), cut where `LLHLSSegmenter` says, each part a file
/// (`room_00012.3.m4s`), each segment its parts' bytes in one file (`room_00012.m4s`, what classic
/// players fetch), the playlists replaced whole after each part (the delta first), old files
/// deleted as `LLHLSMediaPlaylist` says, then `published` told.
///
/// Threads: one at a time (the pipeline's offline, the output's writer thread live).
final class LLHLSVariantWriter {
    private let settings: HLSSettings
    private let folder: String
    private let fileName: String
    private let writer: CMAFFragmentWriter
    private var segmenter: LLHLSSegmenter
    private var playlist: LLHLSMediaPlaylist
    private let videoTimeBase: AVRational
    private let index: Int
    private let board: LLHLSBoard
    private let published: HLSPartPublished?
    /// The segment being built: its parts' bytes so far.
    private var segmentBytes: [UInt8] = []
    private(set) var bytesWritten: Int64 = 0

    /// `settings`: this variant's own (its playlist path); `frameMicroseconds`: one of its frames.
    /// `uploaded`: the playlist is mirrored to an object store (`s3://`), which takes its segments
    /// but not its parts: it lists segments only.
    init(settings: HLSSettings, streams: [StreamDescription], startOffsetMicroseconds: Int64, partMicroseconds: Int64,
         frameMicroseconds: Int64, index: Int, board: LLHLSBoard, published: HLSPartPublished?, uploaded: Bool = false) throws {
        self.settings = settings
        self.index = index
        self.board = board
        self.published = published
        let folder = (settings.playlist as NSString).deletingLastPathComponent
        let fileName = (settings.stem as NSString).lastPathComponent
        self.folder = folder
        self.fileName = fileName
        videoTimeBase = streams[0].timeBase
        try FileManager.default.createDirectory(atPath: folder.isEmpty ? "." : folder, withIntermediateDirectories: true)
        // A restarted task continues what the earlier run listed, after a discontinuity, with an
        // init section of its own (`HLSRunPlaylist`'s names), so no earlier file is overwritten.
        let earlierText = try? String(contentsOfFile: settings.playlist, encoding: .utf8)
        let run = HLSRunPlaylist(earlier: earlierText, fileName: fileName, fmp4: true) { name in
            FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(name))
        }
        let initName = run.initName ?? "\(fileName)_init.mp4"
        let configuration = LLHLSMediaPlaylist.Configuration(
            fileName: fileName, segmentSeconds: settings.segmentSeconds, partMicroseconds: partMicroseconds,
            windowSegments: settings.playlistType == .live ? settings.windowSegmentCount : nil, initName: initName,
            listsParts: !uploaded)
        playlist = LLHLSMediaPlaylist(configuration, earlier: earlierText.flatMap(LLHLSEarlierPlaylist.init))
        segmenter = LLHLSSegmenter(partMicroseconds: partMicroseconds,
                                   segmentMicroseconds: Int64((settings.segmentSeconds * 1_000_000).rounded()),
                                   frameMicroseconds: frameMicroseconds, firstSegment: playlist.firstSequence)
        writer = try CMAFFragmentWriter(streams: streams, startOffsetMicroseconds: startOffsetMicroseconds)
        try write(writer.initialization, to: initName)
    }

    /// The rendition's video packet: a part (and segment) cut before it when its time says so.
    func video(_ packet: Packet) throws {
        let pointer = packet.pointer.pointee
        let time = pointer.pts != FFmpeg.noPTS ? pointer.pts : pointer.dts
        let pts = rescale(time, from: videoTimeBase, to: microsecondsTimeBase)
        let started = segmenter.hasStarted
        switch segmenter.frame(at: pts, keyframe: pointer.flags & AV_PKT_FLAG_KEY != 0) {
        case .drop: return
        case .append:
            // The wall clock of pts 0 is fixed as the first frame arrives, not when its part is done.
            if !started { _ = board.programDateTime(pts: pts) }
        case .cut(let closed): try publish(closed, bytes: try writer.flushFragment())
        }
        try writer.write(packet, streamIndex: 0)
    }

    /// The AAC packet: into the part being built (none before the first keyframe).
    func audio(_ packet: Packet) throws {
        guard segmenter.hasStarted else { return }
        try writer.write(packet, streamIndex: 1)
    }

    /// The last part and segment, then the playlist as it stays (`#EXT-X-ENDLIST`).
    func finish() throws {
        if let closed = segmenter.finish() { try publish(closed, bytes: try writer.finish()) }
        let end = playlist.end()
        try write(Array(end.delta.utf8), to: "\(fileName)_delta.m3u8")
        try write(Array(end.playlist.utf8), to: "\(fileName).m3u8")
    }

    private func publish(_ closed: LLHLSSegmenter.ClosedPart, bytes: [UInt8]) throws {
        try write(bytes, to: LLHLSMediaPlaylist.partName(fileName, sequence: closed.segment, part: closed.part))
        segmentBytes += bytes
        playlist.setRenditionReports(board.reports(except: index))
        let update = playlist.partWritten(closed, programDateTimeMilliseconds: board.programDateTime(pts: closed.segmentStartMicroseconds))
        if let segment = update.completedSegment {
            try write(segmentBytes, to: segment.uri)
            segmentBytes = []
        }
        try write(Array(update.delta.utf8), to: "\(fileName)_delta.m3u8")
        try write(Array(update.playlist.utf8), to: "\(fileName).m3u8")
        for name in update.deleted { try? FileManager.default.removeItem(atPath: path(name)) }
        board.publish(playlist.report(uri: "\(fileName).m3u8"), variant: index)
        published?(settings.playlist, closed.segment, closed.part)
    }

    /// Written aside, then renamed: a reader sees the whole file or none.
    private func write(_ bytes: [UInt8], to name: String) throws {
        let url = URL(fileURLWithPath: path(name))
        do {
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw MediaError("cannot write \(name): \(error.localizedDescription)")
        }
        bytesWritten += Int64(bytes.count)
    }

    private func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
}
