import Foundation
import TesseraTask

/// An HLS output of a task with renditions: one media playlist per rendition, each cut by its
/// own HLS muxer from that rendition's H.264 and the task's one AAC encode, and the master
/// playlist that lists them (`HLSLadderPlan`). Every rendition has its keyframes on the same
/// composite frames (`OutputSet`), so each variant's segments start at the same instants.
///
/// Live, each variant is a `Publisher` (its own thread, queue, reconnects, pause); offline, a
/// muxer written in step with the encoders. A restarted task rewrites the same master and each
/// variant continues its playlist after a discontinuity, as a single-rendition HLS output does.
///
/// Threads: the pipeline's thread, like `OutputSet`; the publishers run their own.
final class HLSLadder {
    private enum Variant {
        case live(Publisher)
        case offline(Muxer)
    }

    private let variants: [Variant]
    /// Ends the master playlist's `PUT` retries (the variants' muxers have their own).
    private let masterInterrupt = InterruptFlag()

    /// `streams[i]`: rendition i's video and the AAC stream, as each variant declares them;
    /// `codecs[i]` its `avc1.…`. Offline muxers poll `interrupt`.
    init(output: ResolvedOutput, settings: HLSSettings, video: VideoSettings, audio: AudioSettings,
         streams: [[StreamDescription]], codecs: [String?], startOffsetMicroseconds: Int64, live: Bool,
         giveUpSeconds: Double, joinsMidStream: Bool, stateChanged: ChangeSignal?, retirement: Retirement,
         interrupt: InterruptFlag, hold: OutputHold?) throws {
        let plan = HLSLadderPlan(settings, renditions: streams.count)
        let master = plan.masterPlaylist(video: video, audio: audio, codecs: codecs)
        var opened: [Variant] = []
        for (index, variant) in plan.variants.enumerated() {
            var variantOutput = ResolvedOutput(url: variant.playlist, kind: .hls(variant), paused: output.paused)
            // An `s3://` ladder's variants hold with the task's other uploads while the spool is full.
            variantOutput.upload = output.upload
            if live {
                let publisher = Publisher(output: variantOutput, streams: streams[index],
                                          startOffsetMicroseconds: startOffsetMicroseconds, giveUpSeconds: giveUpSeconds,
                                          joinsMidStream: joinsMidStream, stateChanged: stateChanged, hold: hold)
                opened.append(.live(publisher))
            } else {
                let muxer = try OutputTarget(variantOutput, hasVideo: true)
                    .open(streams: streams[index], startOffsetMicroseconds: startOffsetMicroseconds, interrupt: interrupt)
                opened.append(.offline(muxer))
            }
        }
        variants = opened
        try Self.publish(master, to: settings, giveUpSeconds: giveUpSeconds, retirement: retirement, interrupt: masterInterrupt)
        for case .live(let publisher) in variants { publisher.start() }
    }

    /// A file master is written before the variants start, and an error fails the output at once;
    /// an origin's `PUT` is retried with back-off on a thread of its own (the pipeline's thread
    /// must not wait on a network peer) until it lands or the task ends.
    private static func publish(_ master: String, to settings: HLSSettings, giveUpSeconds: Double,
                                retirement: Retirement, interrupt: InterruptFlag) throws {
        guard settings.overHTTP else {
            try HLSMasterPlaylistWriter.write(master, to: settings, interrupt: interrupt)
            return
        }
        retirement.retire("tessera-hls-master") {
            var backoff = 0.5
            let deadline = MonotonicClock.seconds + giveUpSeconds
            while (try? HLSMasterPlaylistWriter.write(master, to: settings, interrupt: interrupt)) == nil {
                guard MonotonicClock.seconds < deadline, interrupt.sleep(seconds: backoff) else { return }
                backoff = min(backoff * 2, 8)
            }
        }
    }

    /// Rendition `index`'s video packet, to its variant only.
    func sendVideo(_ packet: Packet, rendition index: Int) throws {
        guard variants.indices.contains(index) else { return }
        try send(packet, streamIndex: 0, to: variants[index])
    }

    /// The AAC packet, to every variant.
    func sendAudio(_ packet: Packet) throws {
        for variant in variants { try send(packet, streamIndex: 1, to: variant) }
    }

    private func send(_ packet: Packet, streamIndex: Int, to variant: Variant) throws {
        switch variant {
        case .live(let publisher): publisher.send(packet, streamIndex: streamIndex)
        case .offline(let muxer): try muxer.write(packet, streamIndex: streamIndex)
        }
    }

    func setPaused(_ paused: Bool) {
        for case .live(let publisher) in variants { publisher.setPaused(paused) }
    }

    /// Live: every variant's queue written, then its trailer (`#EXT-X-ENDLIST`), side by side.
    func finish(timeoutSeconds: Double, retirement: Retirement) throws {
        for variant in variants {
            switch variant {
            case .live(let publisher): retirement.retire("tessera-output-finish") { publisher.finish(timeoutSeconds: timeoutSeconds) }
            case .offline(let muxer): try muxer.finish()
            }
        }
        masterInterrupt.cancel()
    }

    func cancel() {
        for case .live(let publisher) in variants { publisher.cancel() }
        masterInterrupt.cancel()
    }

    /// One state for the output, from any thread: the variants' together
    /// (`Publisher.Snapshot.combined`); a variant written in step reads `live`.
    var statusSource: @Sendable () -> Publisher.Snapshot {
        let publishers = variants.map { variant -> Publisher? in
            if case .live(let publisher) = variant { return publisher }
            return nil
        }
        return {
            Publisher.Snapshot.combined(publishers.map { $0?.snapshot ?? Publisher.Snapshot(state: .live, bytes: 0, reconnects: 0,
                                                                                             droppedPackets: 0, lastError: nil) })
        }
    }
}
