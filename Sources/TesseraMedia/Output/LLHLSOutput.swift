import Dispatch
import Foundation
import Synchronization
import TesseraHLS
import TesseraTask

/// An HLS output with `lowLatency`: one `LLHLSVariantWriter` per rendition it takes (a ladder's
/// every rendition under the master playlist, else the output's own), all cutting parts of the
/// same length on the same composite frames (`LLHLSSegmenter.partMicroseconds`), so parts and
/// segments line up across variants and each reports the others.
///
/// Offline the writers run in step with the encoders. Live they run on a thread of their own
/// with a queue, as a `Publisher` does, so a slow disk never holds the pipeline's frames; a
/// queue that grows past `maximumQueued` (the disk far behind) fails the output.
///
/// Threads: `deliver`, `finish`, `cancel` on the pipeline's thread; the writers on the writer
/// thread only once it runs (live), else on the pipeline's; `shared` under its lock. Hence
/// `@unchecked Sendable`.
final class LLHLSOutput: @unchecked Sendable {
    /// A packet handed whole to the writer thread (its own reference), never touched again by the sender.
    enum Work: @unchecked Sendable { case video(Packet, variant: Int), audio(Packet) }

    private struct Shared {
        var queue: [Work] = []
        var finishing = false
        var cancelled = false
        var state: Publisher.State = .live
        var lastError: String?
        var bytes: Int64 = 0
    }

    /// What the output takes from the encodes.
    let sink: EncodePlan.Sink
    private let writers: [LLHLSVariantWriter]
    private let live: Bool
    var isLive: Bool { live }
    private let shared = Mutex(Shared())
    private let work = ChangeSignal()
    private let done = DispatchSemaphore(value: 0)
    private let stateChanged: ChangeSignal?
    private let url: String
    static let maximumQueued = 3000

    /// `streams[i]`: variant i's video and the AAC; `renditions`: the ladder index of each
    /// variant; `ladder`: a master playlist to write first (a task with renditions).
    init(output: ResolvedOutput, settings: HLSSettings, video: VideoSettings, streams: [[StreamDescription]],
         renditions: [Int], startOffsetMicroseconds: Int64, live: Bool, master: String?,
         published: HLSPartPublished?, stateChanged: ChangeSignal?, interrupt: InterruptFlag) throws {
        self.live = live
        self.stateChanged = stateChanged
        url = output.url
        sink = master != nil ? .ladder : .container(rendition: output.rendition)
        let ladder = video.ladder
        let partMicroseconds = LLHLSSegmenter.partMicroseconds(partSeconds: settings.partSeconds ?? 1, fps: video.fps,
                                                               frameSteps: renditions.map { ladder[$0].frameStep })
        let board = LLHLSBoard()
        var opened: [LLHLSVariantWriter] = []
        for (position, rendition) in renditions.enumerated() {
            let variant = master != nil ? settings.variant(rendition) : settings
            let fps = max(ladder[rendition].fps, 1)
            opened.append(try LLHLSVariantWriter(settings: variant, streams: streams[position],
                                                 startOffsetMicroseconds: startOffsetMicroseconds, partMicroseconds: partMicroseconds,
                                                 frameMicroseconds: Int64(1_000_000 / fps), index: position, board: board,
                                                 published: published, uploaded: output.upload != nil))
        }
        writers = opened
        if let master { try HLSMasterPlaylistWriter.write(master, to: settings, interrupt: interrupt) }
        if live {
            let thread = Thread { [self] in run() }
            thread.name = "tessera-llhls"
            thread.start()
        }
    }

    /// Hands `packet` over as `route` says (offline: written now).
    func deliver(_ packet: Packet, _ route: PacketRoute) throws {
        let item: Work
        switch route {
        case .stream(0) where sink != .ladder: item = .video(packet, variant: 0)
        case .stream: item = .audio(packet)
        case .variant(let index): item = .video(packet, variant: index)
        case .everyVariant: item = .audio(packet)
        case .rtp: return
        }
        guard live else { return try write(item) }
        let overflow = shared.withLock { shared -> Bool in
            guard !shared.finishing, !shared.cancelled, shared.state == .live else { return false }
            guard shared.queue.count < Self.maximumQueued else {
                shared.queue.removeAll()
                shared.state = .failed
                shared.lastError = "the disk took no part for \(Self.maximumQueued) packets: LL-HLS output stopped"
                return true
            }
            shared.queue.append(.init(copying: item))
            return false
        }
        if overflow {
            FileHandle.standardError.write(Data("tessera: LL-HLS output \(URLRedaction.redact(url)) failed: disk too slow\n".utf8))
            stateChanged?.notify()
        }
        work.notify()
    }

    private func write(_ item: Work) throws {
        switch item {
        case .video(let packet, let variant):
            guard writers.indices.contains(variant) else { return }
            try writers[variant].video(packet)
        case .audio(let packet):
            for writer in writers { try writer.audio(packet) }
        }
    }

    /// The live writer thread: the queue in order, then the end.
    private func run() {
        defer { done.signal() }
        while true {
            let next = shared.withLock { shared -> (item: Work?, end: Bool) in
                if shared.cancelled || shared.state == .failed { return (nil, true) }
                if !shared.queue.isEmpty { return (shared.queue.removeFirst(), false) }
                return (nil, shared.finishing)
            }
            if let item = next.item {
                do { try write(item) } catch { fail(error); return }
                let bytes = writers.reduce(0) { $0 + $1.bytesWritten }
                shared.withLock { $0.bytes = bytes }
                continue
            }
            if next.end { break }
            work.wait()
        }
        guard !shared.withLock({ $0.cancelled || $0.state == .failed }) else { return }
        do {
            try finishWriters()
            shared.withLock { $0.state = .finished }
            stateChanged?.notify()
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: Error) {
        shared.withLock { $0.state = .failed; $0.lastError = "\(error)" }
        FileHandle.standardError.write(Data("tessera: LL-HLS output \(URLRedaction.redact(url)) failed: \(error)\n".utf8))
        stateChanged?.notify()
    }

    private func finishWriters() throws {
        for writer in writers { try writer.finish() }
    }

    /// The end: offline the last parts and playlists now; live the queue first, waited for at
    /// most `timeoutSeconds`.
    func finish(timeoutSeconds: Double) throws {
        guard live else { return try finishWriters() }
        shared.withLock { $0.finishing = true }
        work.notify()
        if done.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            cancel()
            throw MediaError("LL-HLS output did not finish within \(Int(timeoutSeconds)) s")
        }
        if let error = shared.withLock({ $0.state == .failed ? $0.lastError : nil }) { throw MediaError(error) }
    }

    func cancel() {
        shared.withLock { $0.cancelled = true }
        work.notify()
    }

    var statusSource: (@Sendable () -> Publisher.Snapshot)? {
        guard live else { return nil }
        return { [self] in
            shared.withLock { Publisher.Snapshot(state: $0.state, bytes: $0.bytes, reconnects: 0, droppedPackets: 0, lastError: $0.lastError) }
        }
    }
}

extension LLHLSOutput.Work {
    /// The queue keeps its own reference: the encoder reuses its packet.
    init(copying item: LLHLSOutput.Work) {
        switch item {
        case .video(let packet, let variant): self = .video(packet.clone(), variant: variant)
        case .audio(let packet): self = .audio(packet.clone())
        }
    }
}
