import Foundation
import TesseraRTP
import TesseraTask

/// Opening one output of the set, by kind, with the encodes it takes.
extension OutputSet {
    func open(_ output: ResolvedOutput, joinsMidStream: Bool = false) throws {
        do {
            // Remuxed from each input's own packets, not from an encode (the per-input recorder).
            if case .perInput = output.kind { return }
            if case .rtp(let settings) = output.kind {
                let publisher = try makeRTPPublisher(output, settings: settings)
                publisher.start()
                router.add(output, .rtp(publisher))
                if let format = publisher.videoFormat { pool.keyframes.request(format) }
                return
            }
            if case .hls(let hls) = output.kind, hls.partSeconds != nil, let video = plan.video {
                try openLowLatency(output, settings: hls, video: video)
                return
            }
            if case .hls(let hls) = output.kind, let video = plan.video, plan.hasRenditions {
                try openLadder(output, settings: hls, video: video, joinsMidStream: joinsMidStream)
                return
            }
            if live, !Self.isRaw(output) {
                let main = try pool.mainStreams(rendition: output.rendition)
                let publisher = Publisher(output: output, streams: main.streams, startOffsetMicroseconds: main.startOffsetMicroseconds,
                                          giveUpSeconds: giveUpSeconds, stallSeconds: stallSeconds, joinsMidStream: joinsMidStream,
                                          stateChanged: stateChanged, hold: hold)
                publisher.start()
                router.add(output, .publisher(publisher))
                if let format = plan.videoFormat(forRendition: output.rendition) { pool.keyframes.request(format) }
                return
            }
            if case .file(let path, .y4m) = output.kind {
                guard let video = plan.video else { throw MediaError(".y4m needs video (encoder.video)") }
                try Self.createParentDirectory(of: path)
                router.add(output, .raw(try Y4MWriter(path: path, width: video.width, height: video.height, fps: video.fps)))
                return
            }
            let main = try pool.mainStreams(rendition: output.rendition)
            let muxer = try OutputTarget(output, hasVideo: plan.video != nil)
                .open(streams: main.streams, startOffsetMicroseconds: main.startOffsetMicroseconds, interrupt: interrupt)
            router.add(output, .muxer(muxer))
        } catch {
            throw OutputRouter.failure(of: output, error)
        }
    }

    /// An HLS output of a task with renditions: every rendition's encode (opened now if no output
    /// took it yet), a variant each, and the master playlist naming their codecs.
    private func openLadder(_ output: ResolvedOutput, settings: HLSSettings, video: VideoSettings, joinsMidStream: Bool) throws {
        let streams = try video.ladder.indices.map { try pool.mainStreams(rendition: $0) }
        let codecs = video.ladder.indices.map { index -> String? in
            plan.videoFormat(forRendition: index).flatMap(pool.parameterSets(of:)).flatMap(HLSCodecs.avc1(parameterSets:))
        }
        let ladder = try HLSLadder(output: output, settings: settings, video: video, audio: audioSettings,
                                   streams: streams.map(\.streams), codecs: codecs,
                                   startOffsetMicroseconds: streams[0].startOffsetMicroseconds, live: live,
                                   giveUpSeconds: giveUpSeconds, joinsMidStream: joinsMidStream, stateChanged: stateChanged,
                                   retirement: retirement, interrupt: interrupt, hold: hold)
        router.add(output, .ladder(ladder))
        // Every rendition's next keyframe on one frame: the variants start together.
        if let main = plan.mainVideoFormat { pool.keyframes.request(main) }
    }

    /// An LL-HLS output (`LLHLSOutput`): a variant per rendition under a master playlist when
    /// the task has renditions, else the output's rendition alone.
    private func openLowLatency(_ output: ResolvedOutput, settings: HLSSettings, video: VideoSettings) throws {
        let renditions = plan.hasRenditions ? Array(video.ladder.indices) : [output.rendition]
        let streams = try renditions.map { try pool.mainStreams(rendition: $0) }
        var master: String?
        if plan.hasRenditions {
            let codecs = video.ladder.indices.map { index -> String? in
                plan.videoFormat(forRendition: index).flatMap(pool.parameterSets(of:)).flatMap(HLSCodecs.avc1(parameterSets:))
            }
            master = HLSLadderPlan(settings, renditions: renditions.count).masterPlaylist(video: video, audio: audioSettings, codecs: codecs)
        }
        let lowLatency = try LLHLSOutput(output: output, settings: settings, video: video, streams: streams.map(\.streams),
                                         renditions: renditions, startOffsetMicroseconds: streams[0].startOffsetMicroseconds,
                                         live: live, master: master, published: hlsParts, stateChanged: stateChanged,
                                         interrupt: interrupt)
        router.add(output, .lowLatencyHLS(lowLatency))
        // Every variant's next keyframe on one frame: the parts start together.
        if let main = plan.videoFormat(forRendition: renditions[0]) { pool.keyframes.request(main) }
    }

    private func makeRTPPublisher(_ output: ResolvedOutput, settings: RTPOutputSettings) throws -> RTPPublisher {
        var videoSource: RTPPublisher.VideoSource?
        if settings.video != nil, plan.video != nil {
            let format = settings.videoEncodeFormat
            let encoder = try pool.videoEncoder(format)
            let parameterSets = format == .vp8 ? [] : pool.parameterSets(of: format) ?? []
            videoSource = RTPPublisher.VideoSource(format: format, timeBase: encoder.timeBase, parameterSets: parameterSets)
        }
        let opus = try pool.audioEncoder(.opus).encoder
        let cname = "tessera-" + String(settings.video?.ssrc ?? settings.audio.ssrc, radix: 16)
        let sdp = settings.sessionDescription(sessionName: "Tessera", cname: cname, video: plan.video, audio: audioSettings)
        let keyframes = pool.keyframes
        let format = videoSource?.format
        return RTPPublisher(output: output, settings: settings, video: videoSource, audioTimeBase: opus.timeBase,
                            sessionDescription: sdp, cname: cname, stateChanged: stateChanged,
                            requestKeyframe: { if let format { keyframes.request(format) } })
    }

    private static func isRaw(_ output: ResolvedOutput) -> Bool {
        if case .file(_, .y4m) = output.kind { return true }
        return false
    }

    /// `recordings/day1/room.mp4` may name folders that do not exist yet.
    private static func createParentDirectory(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    static func formatName(_ output: ResolvedOutput) -> String? {
        switch output.kind {
        case .file(_, let container): return container.muxerName
        case .rtp, .perInput: return nil
        case .rtmp: return "flv"
        case .srt: return "mpegts"
        case .hls(let hls): return hls.segmentFormat == .fmp4 ? "mp4" : "mpegts"
        }
    }
}
