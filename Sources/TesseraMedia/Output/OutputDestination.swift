import TesseraComposition
import TesseraTask

/// Where one output's packets are written, by kind of output.
///
/// Threads: the pipeline's thread; `statusSource` is what the status thread may call.
enum OutputDestination {
    /// Offline: a container written in step with the encoder.
    case muxer(Muxer)
    /// A raw `.y4m` file of the composite's pictures.
    case raw(Y4MWriter)
    /// Live: an output on its own thread with its own queue and reconnects.
    case publisher(Publisher)
    /// Into the room: RTP sent as it is encoded.
    case rtp(RTPPublisher)
    /// HLS of a task with renditions: a variant per rendition under one master playlist.
    case ladder(HLSLadder)
    /// LL-HLS: parts, segments and playlists written by Tessera (`LLHLSOutput`).
    case lowLatencyHLS(LLHLSOutput)

    /// Hands `packet` over as `route` says.
    func deliver(_ packet: Packet, _ route: PacketRoute) throws {
        switch (self, route) {
        case (.muxer(let muxer), .stream(let index)): try muxer.write(packet, streamIndex: index)
        case (.publisher(let publisher), .stream(let index)): publisher.send(packet, streamIndex: index)
        case (.rtp(let publisher), .rtp(let isVideo)): publisher.send(packet, isVideo: isVideo)
        case (.ladder(let ladder), .variant(let rendition)): try ladder.sendVideo(packet, rendition: rendition)
        case (.ladder(let ladder), .everyVariant): try ladder.sendAudio(packet)
        case (.lowLatencyHLS(let output), _): try output.deliver(packet, route)
        default: break
        }
    }

    /// Holds or resumes a live recording (`ResolvedOutput.paused`).
    func setPaused(_ paused: Bool) {
        switch self {
        case .publisher(let publisher): publisher.setPaused(paused)
        case .ladder(let ladder): ladder.setPaused(paused)
        // Not held: a part cut across a pause would outlast PART-TARGET.
        case .muxer, .raw, .rtp, .lowLatencyHLS: break
        }
    }

    /// Removed by an update: a live output is finished on a thread of its own (its queue written,
    /// then its trailer, cancelled after 2 s), since its peer may have stopped reading and the
    /// caller is the thread every other output's frames come from.
    func retire(_ retirement: Retirement) {
        switch self {
        case .publisher(let publisher): retirement.retire("tessera-output-removed") { publisher.finish(timeoutSeconds: 2) }
        case .rtp(let publisher): retirement.retire("tessera-output-removed") { publisher.finish() }
        case .ladder(let ladder): try? ladder.finish(timeoutSeconds: 2, retirement: retirement)
        case .lowLatencyHLS(let output): retirement.retire("tessera-output-removed") { try? output.finish(timeoutSeconds: 2) }
        case .muxer(let muxer): try? muxer.finish()
        case .raw(let writer): try? writer.finish()
        }
    }

    /// The task's end, first step: a live output starts finishing on a thread of its own, so that
    /// one stuck peer costs its own timeout once, not one per output.
    func startFinishing(within seconds: Double, _ retirement: Retirement) {
        switch self {
        case .publisher(let publisher): retirement.retire("tessera-output-finish") { publisher.finish(timeoutSeconds: seconds) }
        case .rtp(let publisher): retirement.retire("tessera-output-finish") { publisher.finish() }
        case .lowLatencyHLS(let output) where output.isLive:
            retirement.retire("tessera-output-finish") { try? output.finish(timeoutSeconds: seconds) }
        case .muxer, .raw, .ladder, .lowLatencyHLS: break
        }
    }

    /// The task's end, second step: what is written in step is finished here (an HLS ladder's
    /// live variants start finishing on their own threads).
    func finishInStep(within seconds: Double, _ retirement: Retirement) throws {
        switch self {
        case .muxer(let muxer): try muxer.finish()
        case .raw(let writer): try writer.finish()
        case .ladder(let ladder): try ladder.finish(timeoutSeconds: seconds, retirement: retirement)
        case .lowLatencyHLS(let output) where !output.isLive: try output.finish(timeoutSeconds: seconds)
        case .publisher, .rtp, .lowLatencyHLS: break
        }
    }

    /// Stops at once (a failed start or an abandoned run).
    func cancel() {
        switch self {
        case .publisher(let publisher): publisher.cancel()
        case .rtp(let publisher): publisher.cancel()
        case .ladder(let ladder): ladder.cancel()
        case .lowLatencyHLS(let output): output.cancel()
        case .muxer, .raw: break
        }
    }

    /// Reads the output's live state from any thread; nil for outputs written in step with the
    /// encoder, whose state is known only at `finish`.
    var statusSource: (@Sendable () -> Publisher.Snapshot)? {
        switch self {
        case .publisher(let publisher): return { publisher.snapshot }
        case .rtp(let publisher): return { publisher.snapshot }
        case .ladder(let ladder): return ladder.statusSource
        case .lowLatencyHLS(let output): return output.statusSource
        case .muxer, .raw: return nil
        }
    }
}
