import Foundation
import Logging
import Synchronization
import TesseraComposition
import TesseraRTP
import TesseraMedia
import TesseraWorkerProtocol

/// The input's status as the worker reports it (any thread): its state, counters, the RTP
/// reader's packets and RTCP, its orientation and draw size; and the log lines for what the
/// reader counted since (refused packets, clock jumps).
extension InputWorker {
    var status: InputStatus {
        let counters = channel.counters
        let seen = shared.withLock { $0 }
        let reader = seen.reader?.reader
        let packets = reader?.packetCounters
        let reception = reader?.receptionStatus
        if let packets { logClockJumps(packets) }
        var status = InputStatus(id: input.id, state: seen.state, frames: counters.pictures,
                                 drops: counters.dropped + Int64(seen.decodeErrors), lastError: seen.lastError, packets: packets,
                                 rotation: seen.orientation?.rotationDegrees, flip: seen.orientation?.mirrored == true ? true : nil)
        if case .rtpSDP = input.source { status.ready = reader != nil }
        if let reception {
            status.rtcp = reception.rtcp
            status.videoState = reception.videoState
            status.audioState = reception.audioState
            if status.lastError == nil, let refusal = reception.refusal {
                status.lastError = refusal
                noteRefusal(refusal, count: reception.refusalCount)
            }
        }
        status.drawSize = layout.largestDrawSize(inputID: input.id, displaySize: seen.displaySize)
        return status
    }

    /// Logs a refused packet's reason the first time it is seen (the reader counts every one).
    private func noteRefusal(_ text: String, count: Int64) {
        let isNew = shared.withLock { shared -> Bool in
            guard count != shared.loggedRefusals else { return false }
            shared.loggedRefusals = count
            return true
        }
        if isNew { Self.logger.warning("input \(input.id): \(text)") }
    }

    /// The reader re-places a participant whose sender stalled or whose clock stepped; the status
    /// counts it, the log says when (the status is read about once a second).
    private func logClockJumps(_ packets: PacketCounters) {
        let new = shared.withLock { shared -> Int64 in
            // A reader of a new connection counts from 0 again.
            if packets.clockJumps < shared.loggedClockJumps { shared.loggedClockJumps = 0 }
            defer { shared.loggedClockJumps = packets.clockJumps }
            return packets.clockJumps - shared.loggedClockJumps
        }
        guard new > 0 else { return }
        Self.logger.notice(
            "input \(input.id): sender clock or path jumped, re-placed (\(packets.clockJumps) so far, drift \(String(format: "%.0f", packets.clockDriftPpm)) ppm)")
    }
}

/// The open connection's reader, as the status asks it for counters from other threads while
/// the input's thread runs it: the readers keep those counters under their own locks.
final class ReaderHandle: @unchecked Sendable {
    let reader: any InputReader
    init(_ reader: any InputReader) { self.reader = reader }
}
