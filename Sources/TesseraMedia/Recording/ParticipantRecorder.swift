import Foundation
import TesseraTask

/// One participant's recording for one per-input output: the files it writes one after the other
/// (a new one per connection: `room42-guest.mkv`, after a rejoin `room42-guest.1.mkv`), each
/// packet copied in as received at its time on the task clock. Used on the input's thread only.
///
/// What happens to each packet is `ParticipantRecordingPlan`'s decision; a file that cannot be
/// written (a codec the container cannot hold, a full disk) fails the recording, which then
/// drops what comes — told once through `events`.
public final class ParticipantRecorder {
    public enum Event {
        /// A file was opened (`endMicroseconds` nil) or finished (set).
        case file(RecordedFile)
        case failed(String)
    }

    public let input: String
    /// The first file's path (`{input}` replaced), and the same as the status lists it.
    private let firstPath: String
    private let firstURL: String
    private let formatName: String
    private var plan: ParticipantRecordingPlan
    private var file: RecordingFile?
    private var fileIndex: Int?
    private var report: RecordedFile?
    private let events: (Event) -> Void
    public private(set) var failure: String?
    /// Of the files finished so far: audio packets dropped as overlapping the one before (a
    /// placement pulled earlier), video packets moved a tick forward to stay in order.
    private var finishedDroppedOverlap: Int64 = 0
    private var finishedClamped: Int64 = 0
    private let exists: (String) -> Bool

    /// - Parameters:
    ///   - path: the first file's absolute path (the template with `{input}` replaced).
    ///   - url: the same file as the status lists it (its path, or its `s3://` URL).
    ///   - formatName: `matroska`, `webm` or `mp4`.
    ///   - hasVideo: whether the input has a video stream (a file then starts at a keyframe).
    public init(input: String, path: String, url: String, formatName: String, hasVideo: Bool,
                exists: @escaping (String) -> Bool = { FileManager.default.fileExists(atPath: $0) },
                events: @escaping (Event) -> Void) {
        self.input = input
        firstPath = path
        firstURL = url
        self.formatName = formatName
        plan = ParticipantRecordingPlan(hasVideo: hasVideo)
        self.exists = exists
        self.events = events
    }

    public var isPaused: Bool { plan.paused }
    public func setPaused(_ paused: Bool) { plan.setPaused(paused) }

    /// Records `packet`, placed at `ptsMicroseconds` on the task clock (its dts moved as far).
    public func write(_ packet: EncodedPacket, ptsMicroseconds: Int64) {
        guard failure == nil else { return }
        let action = plan.decide(packet.planned(atMicroseconds: ptsMicroseconds))
        do {
            switch action {
            case .drop:
                return
            case .reopen:
                finishFile()
                try open(startingWith: packet, at: ptsMicroseconds)
            case .open:
                try open(startingWith: packet, at: ptsMicroseconds)
            case .write:
                break
            }
            let dts = ptsMicroseconds + (packet.dtsMicroseconds - packet.ptsMicroseconds)
            guard try file?.write(packet, ptsMicroseconds: ptsMicroseconds, dtsMicroseconds: dts) == true else { return }
            if packet.kind == .video, packet.width > 0, let stream = report?.video, stream.width == nil {
                report?.video = RecordedStream(codec: stream.codec, width: packet.width, height: packet.height)
            }
        } catch {
            fail("\(error)")
        }
    }

    /// The connection ended (or the recording is removed, or the task ends): the open file is
    /// finished; the next packet that may start a file starts the next one.
    public func finish() {
        finishFile()
        plan.closed()
    }

    /// Audio packets dropped, in every file so far, because they would have started before the
    /// previous packet's end.
    public var droppedOverlap: Int64 { finishedDroppedOverlap + (file?.droppedOverlapPackets ?? 0) }
    /// Video packets moved forward, in every file so far, to keep a file's order.
    public var clampedVideo: Int64 { finishedClamped + (file?.clampedPackets ?? 0) }

    /// Bytes written to the open file.
    public var bytes: Int64 { file?.bytes ?? 0 }

    // MARK: Files

    /// Opens the next free file with the stream formats the packet's input has, `packet` first.
    private func open(startingWith packet: EncodedPacket, at pts: Int64) throws {
        let index = ParticipantFileNames.nextIndex(after: fileIndex, path: firstPath, exists: exists)
        let path = RecordingFileNames.name(firstPath, index: index)
        fileIndex = index
        // A file starts at a video keyframe (its input's audio beside it) or, without video, at audio.
        let videoFormat = packet.kind == .video ? packet.formats.video : nil
        let audioFormat = packet.formats.audio
        let extradata = packet.kind == .video && videoFormat?.isH264 == true && videoFormat?.hasExtradata == false
            ? RecordingCodecHeaders.h264ParameterSets(annexB: packet.bytes) : []
        file = try RecordingFile(path: path, formatName: formatName, video: videoFormat,
                                 videoSize: (packet.width, packet.height), videoExtradata: extradata, audio: audioFormat)
        let url = RecordingFileNames.name(firstURL, index: index)
        let report = RecordedFile(
            input: input, url: url, offsetMicroseconds: pts,
            video: videoFormat.map { RecordedStream(codec: $0.codecName, width: packet.width > 0 ? packet.width : nil,
                                                    height: packet.height > 0 ? packet.height : nil) },
            audio: audioFormat.map { RecordedStream(codec: $0.codecName) })
        self.report = report
        events(.file(report))
    }

    private func finishFile() {
        guard let file else { return }
        self.file = nil
        finishedDroppedOverlap += file.droppedOverlapPackets
        finishedClamped += file.clampedPackets
        do {
            try file.finish()
        } catch {
            fail("\(file.path): \(error)")
        }
        if var report {
            report.endMicroseconds = max(file.endMicroseconds, report.offsetMicroseconds)
            events(.file(report))
        }
        report = nil
    }

    private func fail(_ message: String) {
        guard failure == nil else { return }
        failure = message
        if let file {
            self.file = nil
            try? file.finish()
        }
        events(.failed(message))
    }
}
