import TesseraComposition
import TesseraRTP
import TesseraMedia
import TesseraTask

/// A `sequence` input (`inputs[].sequence`): a participant recorded in several files, played one
/// after another, each from its own start on the output timeline. Every file is opened up front,
/// so a missing or unreadable one fails the task by name before it starts, as a file input does.
/// A file that runs into the next one's start is cut there (the next file takes over).
final class SequenceInput: OpenedInput {
    private let files: [TimedFile]
    private let sources: [MediaSource]
    let description: MediaSource.Description
    var arrivesInRealTime: Bool { false }

    init(files: [TimedFile], open: (String) throws -> MediaSource) throws {
        self.files = files
        sources = try files.enumerated().map { index, file in
            do { return try open(file.path) } catch { throw MediaError("sequence[\(index)] \(file.path): \(error)") }
        }
        let first = sources.first?.description
        description = MediaSource.Description(hasVideo: sources.contains { $0.description.hasVideo },
                                              hasAudio: sources.contains { $0.description.hasAudio },
                                              videoCodec: sources.lazy.compactMap(\.description.videoCodec).first ?? first?.videoCodec,
                                              audioCodec: sources.lazy.compactMap(\.description.audioCodec).first ?? first?.audioCodec)
    }

    func makeReader(loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) -> InputReader {
        let parts = files.indices.map { index in
            SequenceReader.Part(start: files[index].startAtMicroseconds,
                                end: index + 1 < files.count ? files[index + 1].startAtMicroseconds : nil,
                                hasVideo: sources[index].description.hasVideo, hasAudio: sources[index].description.hasAudio,
                                reader: sources[index].makeReader(loop: false, outputSampleRate: outputSampleRate,
                                                                  outputChannels: outputChannels, pool: pool))
        }
        return SequenceReader(parts: parts, sampleRate: outputSampleRate)
    }
}

/// Reads a sequence's files in turn into one sink, each shifted to its start.
final class SequenceReader: InputReader {
    struct Part {
        var start: Int64
        /// The next file's start: media from here on is left to it.
        var end: Int64?
        var hasVideo: Bool
        var hasAudio: Bool
        var reader: InputReader
    }

    private let parts: [Part]
    private let sampleRate: Int

    init(parts: [Part], sampleRate: Int) {
        self.parts = parts
        self.sampleRate = sampleRate
    }

    func run(into sink: MediaSink) throws {
        for part in parts {
            if sink.shouldStop { return }
            try part.reader.run(into: ShiftedSink(sink, part: part, sampleRate: sampleRate))
        }
    }

    var decodeErrors: Int { parts.reduce(0) { $0 + $1.reader.decodeErrors } }
    var packetCounters: PacketCounters? { nil }
}

/// One file's media, moved to its start on the input's timeline and cut at the next file's start.
private final class ShiftedSink: MediaSink {
    private let sink: MediaSink
    private let part: SequenceReader.Part
    private let sampleRate: Int64
    private var videoDone: Bool
    private var audioDone: Bool

    init(_ sink: MediaSink, part: SequenceReader.Part, sampleRate: Int) {
        self.sink = sink
        self.part = part
        self.sampleRate = Int64(sampleRate)
        videoDone = !part.hasVideo
        audioDone = !part.hasAudio
    }

    /// Both streams have reached the next file's start: the rest of this file is not read.
    var shouldStop: Bool { sink.shouldStop || (videoDone && audioDone) }

    func picture(_ picture: DecodedPicture) throws -> Bool {
        let shifted = picture.delayed(by: part.start)
        if let end = part.end, shifted.ptsMicroseconds >= end {
            videoDone = true
            return true
        }
        return try sink.picture(shifted)
    }

    func audio(_ planes: [UnsafePointer<Float>], count: Int, position: Int64) {
        let start = position + part.start * sampleRate / 1_000_000
        var count = count
        if let end = part.end {
            let endSample = end * sampleRate / 1_000_000
            if start >= endSample { audioDone = true; return }
            count = Int(min(Int64(count), endSample - start))
        }
        sink.audio(planes, count: count, position: start)
    }

    var wantsSEI: Bool { sink.wantsSEI }
    func sei(_ messages: [SEIMessage]) { sink.sei(messages) }
    /// A sequence is a replay of recordings already made: its packets are not recorded again.
    var wantsPackets: Bool { false }
    func encoded(_ packet: EncodedPacket) {}
}
