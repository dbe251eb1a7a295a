import CFFmpeg
import Foundation
import TesseraTask

/// `mode: relay`: one input pushed to the outputs without re-encoding its video. Audio is copied
/// when FLV can carry it (AAC, MP3) and otherwise transcoded to AAC. Timestamps continue across
/// `loop` passes. Live, packets leave at the input's own pace; offline, as fast as the outputs
/// take them.
public final class RelaySession {
    private let source: MediaSource
    private let loop: Bool
    private let realtime: Bool
    private let audioSettings: AudioSettings
    private var publishers: [Publisher] = []
    private let videoIndex: Int32?
    private let audioIndex: Int32?
    private var audioTranscoder: AudioTranscoder?
    private let streams: [StreamDescription]
    private let packet = Packet()
    /// Offset added to input timestamps (µs): the passes already played.
    private var loopOffsetMicroseconds: Int64 = 0
    private var passEndMicroseconds: Int64 = 0
    private var firstMicroseconds: Int64?
    private let started = MonotonicClock.nanoseconds
    public private(set) var packetsRelayed: Int64 = 0

    /// Checks that the outputs can carry the input's codecs (FLV: H.264 video only).
    public static func checkCodecs(_ source: MediaSource, outputs: [ResolvedOutput]) throws {
        let needsFLV = outputs.contains { output in
            switch output.kind {
            case .rtmp: return true
            case .file(_, let container): return container == .flv
            case .srt, .rtp, .hls, .perInput: return false
            }
        }
        if outputs.contains(where: { if case .rtp = $0.kind { return true } else { return false } }) {
            throw MediaError("rtp outputs send their own encodes (H.264 or VP8, Opus): use mode \"mix\"")
        }
        if needsFLV, let codec = source.description.videoCodec, codec != "h264" {
            throw MediaError("relay to RTMP / FLV carries H.264 video only, and this input is \(codec): use mode \"mix\" to re-encode it")
        }
        if outputs.contains(where: { if case .file(_, .y4m) = $0.kind { return true } else { return false } }) {
            throw MediaError(".y4m outputs need mode \"mix\"")
        }
    }

    /// `giveUpSeconds`: how long a dropped live output keeps reconnecting before it is `failed`.
    public init(source: MediaSource, loop: Bool, realtime: Bool, audio: AudioSettings, outputs: [ResolvedOutput],
                giveUpSeconds: Double, stallSeconds: Double = 10, stateChanged: ChangeSignal? = nil) throws {
        try Self.checkCodecs(source, outputs: outputs)
        self.source = source
        self.loop = loop
        self.realtime = realtime
        audioSettings = audio
        videoIndex = source.demuxer.videoStreamIndex
        audioIndex = source.demuxer.audioStreamIndex
        var streams: [StreamDescription] = []
        if let videoIndex { streams.append(try StreamDescription(stream: source.demuxer.stream(videoIndex))) }
        if let audioIndex {
            let stream = source.demuxer.stream(audioIndex)
            let codec = stream.pointee.codecpar.pointee.codec_id
            if codec == AV_CODEC_ID_AAC || codec == AV_CODEC_ID_MP3 {
                streams.append(try StreamDescription(stream: stream))
            } else {
                let transcoder = try AudioTranscoder(settings: audio)
                audioTranscoder = transcoder
                streams.append(transcoder.description)
            }
        }
        self.streams = streams
        publishers = outputs.map {
            Publisher(output: $0, streams: streams, startOffsetMicroseconds: 0, giveUpSeconds: giveUpSeconds, stallSeconds: stallSeconds, capacity: 2000,
                      stateChanged: stateChanged)
        }
    }

    public var outputStates: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)] {
        publishers.map { ($0.output, $0.snapshot) }
    }

    /// Relays until the input ends (or, looping, until `shouldStop`), then finishes the outputs.
    /// Live, a packet waits for its time however far ahead it lies; raising `stop` wakes that wait
    /// at once (then `shouldStop` decides).
    public func run(stop: InterruptFlag, shouldStop: () -> Bool) throws {
        publishers.forEach { $0.start() }
        defer { finishPublishers() }
        let videoStreamIndex = 0
        let audioStreamIndex = videoIndex == nil ? 0 : 1
        while !shouldStop() {
            guard try source.demuxer.read(into: packet) else {
                guard loop, passEndMicroseconds > 0 else { break }
                loopOffsetMicroseconds += passEndMicroseconds
                passEndMicroseconds = 0
                try source.demuxer.seekToStart()
                continue
            }
            let index = packet.pointer.pointee.stream_index
            let stream = source.demuxer.stream(index)
            let timeBase = stream.pointee.time_base
            let pts = packet.pointer.pointee.pts != FFmpeg.noPTS ? packet.pointer.pointee.pts : packet.pointer.pointee.dts
            if pts != FFmpeg.noPTS {
                let relative = rescale(pts, from: timeBase, to: microsecondsTimeBase) - source.demuxer.startTimeMicroseconds
                let duration = rescale(packet.pointer.pointee.duration, from: timeBase, to: microsecondsTimeBase)
                passEndMicroseconds = max(passEndMicroseconds, relative + max(duration, 0))
                if realtime { pace(until: loopOffsetMicroseconds + relative, stop: stop) }
            }
            if index == videoIndex {
                shift(packet, timeBase: timeBase)
                rebase(packet, from: timeBase, to: streams[videoStreamIndex].timeBase)
                send(packet, streamIndex: videoStreamIndex)
            } else if index == audioIndex {
                if let audioTranscoder {
                    try audioTranscoder.transcode(packet, stream: stream,
                                                  offsetMicroseconds: loopOffsetMicroseconds - source.demuxer.startTimeMicroseconds) { encoded in
                        send(encoded, streamIndex: audioStreamIndex)
                    }
                } else {
                    shift(packet, timeBase: timeBase)
                    rebase(packet, from: timeBase, to: streams[audioStreamIndex].timeBase)
                    send(packet, streamIndex: audioStreamIndex)
                }
            }
            if !realtime { waitForOutputs() }
        }
    }

    private func send(_ packet: Packet, streamIndex: Int) {
        packetsRelayed += 1
        for publisher in publishers { publisher.send(packet, streamIndex: streamIndex) }
    }

    /// Input time zero → output zero, plus the loop passes already played.
    private func shift(_ packet: Packet, timeBase: AVRational) {
        let offset = rescale(loopOffsetMicroseconds - source.demuxer.startTimeMicroseconds, from: microsecondsTimeBase, to: timeBase)
        if packet.pointer.pointee.pts != FFmpeg.noPTS { packet.pointer.pointee.pts += offset }
        if packet.pointer.pointee.dts != FFmpeg.noPTS { packet.pointer.pointee.dts += offset }
    }

    private func rebase(_ packet: Packet, from: AVRational, to: AVRational) {
        if from.num != to.num || from.den != to.den { av_packet_rescale_ts(packet.pointer, from, to) }
    }

    /// Holds the packet until its time on the session's clock: a gap in the input, or a loop
    /// pass, is waited out in full rather than in one-second steps that sent packets early.
    private func pace(until microseconds: Int64, stop: InterruptFlag) {
        guard microseconds > 0 else { return }
        stop.sleep(untilMonotonicNanoseconds: started + UInt64(microseconds) * 1_000)
    }

    /// Every output finishes at once: one stuck peer costs its own timeout once, not one per output.
    private func finishPublishers() {
        let retirement = Retirement()
        for publisher in publishers { retirement.retire("tessera-output-finish") { publisher.finish() } }
        retirement.wait(timeoutSeconds: 13)
    }

    /// Offline: hold reading while any output is behind, instead of dropping its packets.
    private func waitForOutputs() {
        for publisher in publishers { publisher.waitUntilQueued(atMost: 1000) }
    }
}
