import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

extension OutputStatus.State {
    /// The one place a publisher's state becomes the task status's: the same words, one to one.
    init(_ state: Publisher.State) {
        switch state {
        case .connecting: self = .connecting
        case .live: self = .live
        case .reconnecting: self = .reconnecting
        case .failed: self = .failed
        case .finished: self = .finished
        case .paused: self = .paused
        }
    }
}

extension OutputStatus {
    /// An output's status from its publisher's snapshot. Once the task has ended, every output is
    /// in a final state (`OutputFault.finalState`): the worker's last status never shows one
    /// `live` or `reconnecting`.
    init(output: ResolvedOutput, snapshot: Publisher.Snapshot, taskEnded: Bool) {
        let state = taskEnded ? OutputFault.finalState(snapshot.state, hasError: snapshot.lastError != nil) : snapshot.state
        self.init(url: URLRedaction.redact(output.url), state: OutputStatus.State(state), bytes: snapshot.bytes,
                  reconnects: snapshot.reconnects, lastError: snapshot.lastError)
        sdp = snapshot.sessionDescription
        rtp = snapshot.rtp
    }
}

extension OutputStatus {
    /// Every output's status: from its publisher once the outputs are open (`states`), else each
    /// planned one `connecting` — or `failed`, when the task ended before they opened.
    static func list(_ states: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)]?, planned: [ResolvedOutput],
                     taskEnded: Bool) -> [OutputStatus] {
        guard let states else {
            return planned.map { OutputStatus(url: URLRedaction.redact($0.url), state: taskEnded ? .failed : .connecting) }
        }
        return states.map { OutputStatus(output: $0.output, snapshot: $0.snapshot, taskEnded: taskEnded) }
    }
}

extension InputStatus {
    /// Once the task has ended, an input still `waiting` or `live` has `ended`; `failed` stays.
    func ended() -> InputStatus {
        var status = self
        switch state {
        case .waiting, .live: status.state = .ended
        case .ended, .failed: break
        }
        return status
    }
}
