import Synchronization
import TesseraComposition
import TesseraTask

/// The task's outputs, and every encoded packet taken to the outputs that take it (`PacketRoute`).
///
/// Threads: changed and written on the pipeline's thread only; `states` is read by the status
/// thread, from a copy kept under `status` each time the outputs change.
final class OutputRouter {
    /// One output and where its packets go.
    struct Routed {
        var output: ResolvedOutput
        let destination: OutputDestination

        /// What it takes from the encodes.
        var sink: EncodePlan.Sink {
            switch destination {
            case .muxer, .publisher: return .container(rendition: output.rendition)
            case .ladder: return .ladder
            case .lowLatencyHLS(let output): return output.sink
            case .rtp(let publisher): return .rtp(video: publisher.videoFormat)
            case .raw: return .raw
            }
        }
    }

    /// What the status thread reads.
    private struct Status: Sendable {
        var outputs: [(output: ResolvedOutput, source: (@Sendable () -> Publisher.Snapshot)?)] = []
        /// Set once the task's end has finished the outputs written in step: nil for those that
        /// finished, their trailer's error for those that failed.
        var ended: [String: String?]?
    }

    private let plan: EncodePlan
    private(set) var outputs: [Routed] = [] {
        didSet {
            let published = outputs.map { ($0.output, $0.destination.statusSource) }
            status.withLock { $0.outputs = published }
        }
    }
    private let status = Mutex(Status())

    init(plan: EncodePlan) { self.plan = plan }

    func add(_ output: ResolvedOutput, _ destination: OutputDestination) {
        outputs.append(Routed(output: output, destination: destination))
    }

    /// Replaces the outputs (an update's: those kept, with their new settings).
    func set(_ kept: [Routed]) { outputs = kept }

    /// The outputs' sinks, to know which encodes they still take.
    var sinks: [EncodePlan.Sink] { outputs.map(\.sink) }

    /// The outputs written in step with the encoder are done: `ended` by URL, nil for a trailer
    /// written, its error for one that failed.
    func markEnded(_ ended: [String: String?]) { status.withLock { $0.ended = ended } }

    /// Each output's URL (as given) and live state; those written in step with the encoder read
    /// `live` until the task's end, then as their trailers went.
    var states: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)] {
        let status = status.withLock { $0 }
        return status.outputs.map { output, source in
            if let source { return (output, source()) }
            let ended = status.ended?[output.url]
            let state: Publisher.State = ended == nil ? .live : ended! == nil ? .finished : .failed
            return (output, Publisher.Snapshot(state: state, bytes: 0, reconnects: 0, droppedPackets: 0, lastError: ended ?? nil))
        }
    }

    // MARK: Routing

    /// The composite itself, to the raw outputs.
    func write(_ picture: YUVImage) throws {
        for case .raw(let writer) in outputs.map(\.destination) { try writer.write(picture) }
    }

    func route(video packet: Packet, from format: VideoEncodeFormat) throws {
        for routed in outputs {
            guard let route = PacketRoute.video(from: format, to: routed.sink, plan: plan) else { continue }
            try deliver(packet, route, to: routed)
        }
    }

    func route(audio packet: Packet, from format: AudioEncodeFormat) throws {
        for routed in outputs {
            guard let route = PacketRoute.audio(from: format, to: routed.sink, plan: plan) else { continue }
            try deliver(packet, route, to: routed)
        }
    }

    private func deliver(_ packet: Packet, _ route: PacketRoute, to routed: Routed) throws {
        do {
            try routed.destination.deliver(packet, route)
        } catch {
            throw Self.failure(of: routed.output, error)
        }
    }

    /// An error of `output`'s, named by its URL (redacted).
    static func failure(of output: ResolvedOutput, _ error: Error) -> MediaError {
        MediaError("output \(URLRedaction.redact(output.url)): \(error)")
    }
}
