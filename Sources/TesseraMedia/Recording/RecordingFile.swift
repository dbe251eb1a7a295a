import CFFmpeg
import Foundation

/// One per-participant recording file: a container the participant's packets are copied into as
/// they come (no decode, no encode), stamped on the task clock, flushed as written.
///
/// Matroska and WebM stamp every block with its task-clock time, so the file's start time is its
/// offset; MP4 is fragmented after its first fragment (`delay_moov`) with an edit list that says
/// the same. A crash keeps every cluster or fragment already written.
///
/// A spool file (an `s3://` output, under `.tessera-spool/`) is uploaded while it grows, so its
/// bytes must be final once written: Matroska / WebM live (no duration, cues or seek head written
/// back at the end), MP4 with an empty `moov` and the offset in each fragment's `tfdt`.
final class RecordingFile {
    let path: String
    private let context: UnsafeMutablePointer<AVFormatContext>
    private var videoIndex: Int32?
    private var audioIndex: Int32?
    private var videoStamps = MonotonicStamps()
    private var audioStamps = MonotonicStamps()
    private var headerWritten = false
    private var trailerWritten = false
    private(set) var bytes: Int64 = 0
    private(set) var packets: Int64 = 0
    /// Task-clock end of the latest packet (its pts plus its duration, or the gap before it).
    private(set) var endMicroseconds: Int64 = 0
    private var lastPts: [Int64?] = [nil, nil]
    /// Audio without a known duration (RTP): its length is taken as the spacing of the packets
    /// before it on the input's own timeline (what the sender's clock says, not the placement).
    private var lastAudioInputPts: Int64?
    private var audioSpacing: Int64 = 0

    /// Creates the file with a stream for `video` and/or `audio` and writes its header.
    /// `videoSize` and `videoExtradata` fill in what an RTP stream's parameters lack.
    /// Throws naming the codec a container cannot hold.
    init(path: String, formatName: String, video: RecordingStreamFormat?, videoSize: (width: Int, height: Int),
         videoExtradata: [UInt8], audio: RecordingStreamFormat?) throws {
        self.path = path
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, formatName, path), "cannot create a \(formatName) file")
        guard let context = allocated else { throw MediaError("cannot create a \(formatName) file") }
        self.context = context
        let container = formatName == "matroska" ? "mkv" : formatName
        for format in [video, audio].compactMap({ $0 }) where avformat_query_codec(context.pointee.oformat, format.codecID,
                                                                                    FF_COMPLIANCE_NORMAL) != 1 {
            throw MediaError("\(container) cannot hold \(format.codecName)")
        }
        if let video {
            guard let stream = avformat_new_stream(context, nil) else { throw MediaError("out of memory") }
            try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, video.parameters), "stream parameters")
            let parameters = stream.pointee.codecpar!
            if parameters.pointee.width <= 0, videoSize.width > 0 {
                parameters.pointee.width = Int32(videoSize.width)
                parameters.pointee.height = Int32(videoSize.height)
            }
            if parameters.pointee.extradata_size == 0, !videoExtradata.isEmpty {
                RecordingStreamFormat.setExtradata(videoExtradata, of: parameters)
            }
            stream.pointee.time_base = formatName == "mp4" ? AVRational(num: 1, den: 90_000) : AVRational(num: 1, den: 1_000)
            videoIndex = stream.pointee.index
        }
        if let audio {
            guard let stream = avformat_new_stream(context, nil) else { throw MediaError("out of memory") }
            try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, audio.parameters), "stream parameters")
            let rate = audio.parameters.pointee.sample_rate
            stream.pointee.time_base = formatName == "mp4" && rate > 0 ? AVRational(num: 1, den: rate) : AVRational(num: 1, den: 1_000)
            audioIndex = stream.pointee.index
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FFmpeg.check(avio_open2(&context.pointee.pb, path, AVIO_FLAG_WRITE, nil, nil), "cannot open for writing")
        let options = OptionDictionary(Self.options(formatName: formatName, hasVideo: video != nil,
                                                    appendOnly: path.contains("/.tessera-spool/")))
        do {
            try FFmpeg.check(avformat_write_header(context, &options.pointer), "cannot write the container header")
        } catch {
            avio_closep(&context.pointee.pb)
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        headerWritten = true
    }

    /// Clusters / fragments of at most a second, each written out as it closes: what a crash loses.
    /// `appendOnly`: nothing written is ever rewritten (checked: the spool file before the trailer
    /// is a prefix of the finished one).
    private static func options(formatName: String, hasVideo: Bool, appendOnly: Bool) -> [String: String] {
        var options = ["flush_packets": "1"]
        if formatName == "mp4" && appendOnly {
            // `frag_discont`: the first fragment's `tfdt` is the first timestamp (not 0), so ffprobe
            // reads the task-clock offset as the start time though the `moov` is written empty.
            options["movflags"] = (hasVideo ? "frag_keyframe+" : "") + "empty_moov+default_base_moof+frag_discont"
            options["frag_duration"] = "1000000"
            options["use_editlist"] = "1"
        } else if formatName == "mp4" {
            // `delay_moov`: the moov waits for the first fragment's samples, so it knows the first
            // timestamp and writes the edit list that puts the file at its task-clock offset.
            options["movflags"] = hasVideo ? "frag_keyframe+delay_moov" : "delay_moov"
            options["frag_duration"] = "1000000"
            options["use_editlist"] = "1"
        } else {
            options["cluster_time_limit"] = "1000"
            if appendOnly { options["live"] = "1" }
        }
        return options
    }

    deinit {
        if headerWritten && !trailerWritten { av_write_trailer(context) }
        avio_closep(&context.pointee.pb)
        avformat_free_context(context)
    }

    /// Writes `packet` (by reference) at `pts` / `dts` on the task clock (µs), kept increasing.
    /// False when an audio packet was dropped as overlapping the one before (`MonotonicStamps`).
    @discardableResult
    func write(_ packet: EncodedPacket, ptsMicroseconds: Int64, dtsMicroseconds: Int64) throws -> Bool {
        let slot = packet.kind == .video ? 0 : 1
        guard let index = packet.kind == .video ? videoIndex : audioIndex else { return false }
        let stream = context.pointee.streams[Int(index)]!
        let timeBase = stream.pointee.time_base
        let pts = rescale(ptsMicroseconds, from: microsecondsTimeBase, to: timeBase)
        let stamped: (pts: Int64, dts: Int64)
        if packet.kind == .video {
            stamped = videoStamps.stamp(pts: pts, dts: rescale(dtsMicroseconds, from: microsecondsTimeBase, to: timeBase))
        } else {
            if let previous = lastAudioInputPts, case let spacing = packet.ptsMicroseconds - previous,
               spacing > 0, spacing <= Self.longestAudioFrame {
                audioSpacing = spacing
            }
            lastAudioInputPts = packet.ptsMicroseconds
            let duration = packet.durationMicroseconds > 0 ? packet.durationMicroseconds : audioSpacing
            guard let start = audioStamps.stampAudio(
                pts: pts, duration: rescale(duration, from: microsecondsTimeBase, to: timeBase),
                tolerance: rescale(Self.audioTolerance, from: microsecondsTimeBase, to: timeBase)) else { return false }
            stamped = (start, start)
        }
        let copy = packet.packet.clone()
        let pointer = copy.pointer
        pointer.pointee.stream_index = index
        pointer.pointee.pts = stamped.pts
        pointer.pointee.dts = stamped.dts
        pointer.pointee.duration = packet.durationMicroseconds > 0
            ? rescale(packet.durationMicroseconds, from: microsecondsTimeBase, to: timeBase) : 0
        pointer.pointee.pos = -1
        let size = Int64(pointer.pointee.size)
        try FFmpeg.check(av_interleaved_write_frame(context, pointer), "cannot write")
        bytes += size
        packets += 1
        let gap = packet.durationMicroseconds > 0 ? packet.durationMicroseconds
            : lastPts[slot].map { min(max(ptsMicroseconds - $0, 0), 200_000) } ?? 0
        lastPts[slot] = ptsMicroseconds
        endMicroseconds = max(endMicroseconds, ptsMicroseconds + gap)
        return true
    }

    /// Opus frames are at most 120 ms; a longer spacing is loss, not a frame's length.
    private static let longestAudioFrame: Int64 = 120_000
    /// An audio start this close before the previous end (µs) is rounding or jitter: moved, not dropped.
    private static let audioTolerance: Int64 = 2_000

    /// Video packets moved forward to keep the file's order.
    var clampedPackets: Int64 { videoStamps.clamped }
    /// Audio packets dropped because they would have overlapped the one before.
    var droppedOverlapPackets: Int64 { audioStamps.droppedOverlap }

    /// Writes what the interleaving queue holds and the trailer (cues, the MP4 index), closes the file.
    func finish() throws {
        guard headerWritten, !trailerWritten else { return }
        trailerWritten = true
        defer { avio_closep(&context.pointee.pb) }
        try FFmpeg.check(av_write_trailer(context), "cannot finish the file")
    }
}
