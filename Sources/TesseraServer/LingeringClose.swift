/// The lingering close of one HTTP/1.1 connection, as a state machine over the parts that pass
/// (no I/O; `LingeringCloseHandler` carries out its actions).
///
/// A response that starts before its request's body has arrived in full is an early answer — a
/// 413 decided on `Content-Length`, a 401 checked before the body. Most clients (Python's
/// `urllib` / `requests`, Go, most SDKs; curl only without `Expect: 100-continue`) send the whole
/// body before they read anything. If the server stopped reading, their send would block until
/// they time out; if it closed with the body still arriving, the kernel would answer with a reset
/// that can destroy the answer before the client reads it. So, as nginx and Go's server do, the
/// answer says `Connection: close`, and once it is written the rest of the body is read and
/// discarded — never held — until the body ends, or `Limits` (bytes after the answer, seconds)
/// run out; then the connection closes.
public struct LingeringClose: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Body bytes discarded after the answer before giving up on the client.
        public var maxBytes: Int
        /// Time from the end of the answer before giving up on the client.
        public var maxSeconds: Double

        public init(maxBytes: Int, maxSeconds: Double) {
            self.maxBytes = maxBytes
            self.maxSeconds = maxSeconds
        }

        /// Room for bodies of tens of MiB over loopback or a fast link; a slow client sending
        /// more than this is cut off (and may then miss the answer) rather than held for long.
        public static let standard = Limits(maxBytes: 64 << 20, maxSeconds: 10)
    }

    /// What to do with an inbound part.
    public enum InboundAction: Equatable, Sendable {
        /// Hand it on to the request handler.
        case forward
        /// Drop it (the request has been answered) and keep reading.
        case discard
        /// Drop it and close the connection.
        case close
    }

    /// What to do once the end of a response has been written.
    public enum ResponseEndAction: Equatable, Sendable {
        case none
        /// Start discarding the rest of the body: keep reading, and close after `maxSeconds`.
        case linger(maxSeconds: Double)
        /// The request was complete before the answer ended: close now.
        case close
    }

    private enum State: Equatable {
        /// No request in progress, or its body has been received in full.
        case idle
        /// A request's head has come and its body is still arriving.
        case receiving
        /// An answer has started before the body ended (`bodyEnded`: it has ended since).
        case answeredEarly(bodyEnded: Bool)
        /// The early answer is written; the rest of the body is being discarded.
        case lingering(discardedBytes: Int)
        case closed
    }

    public let limits: Limits
    private var state = State.idle

    public init(limits: Limits = .standard) { self.limits = limits }

    /// Whether the connection is draining (or has closed) after an early answer.
    public var isLingering: Bool {
        switch state {
        case .lingering, .closed: return true
        default: return false
        }
    }

    public mutating func requestHead() -> InboundAction {
        switch state {
        case .lingering, .closed:
            // A client pipelining past a refused body: nothing more is served on this connection.
            return .close
        default:
            state = .receiving
            return .forward
        }
    }

    public mutating func requestBody(bytes: Int) -> InboundAction {
        switch state {
        case .lingering(let discarded):
            let total = discarded + bytes
            if total > limits.maxBytes {
                state = .closed
                return .close
            }
            state = .lingering(discardedBytes: total)
            return .discard
        case .closed:
            return .close
        default:
            return .forward
        }
    }

    public mutating func requestEnd() -> InboundAction {
        switch state {
        case .receiving:
            state = .idle
            return .forward
        case .answeredEarly:
            state = .answeredEarly(bodyEnded: true)
            return .forward
        case .lingering, .closed:
            state = .closed
            return .close
        case .idle:
            return .forward
        }
    }

    /// The head of a response is about to be written; true when it must say `Connection: close`.
    public mutating func responseHead() -> Bool {
        guard state == .receiving else { return false }
        state = .answeredEarly(bodyEnded: false)
        return true
    }

    /// The end of a response has been written.
    public mutating func responseEnd() -> ResponseEndAction {
        switch state {
        case .answeredEarly(bodyEnded: false):
            state = .lingering(discardedBytes: 0)
            return .linger(maxSeconds: limits.maxSeconds)
        case .answeredEarly(bodyEnded: true):
            state = .closed
            return .close
        default:
            return .none
        }
    }

    /// `maxSeconds` have passed since lingering began: true when the connection must close now.
    public mutating func lingerTimeExpired() -> Bool {
        guard case .lingering = state else { return false }
        state = .closed
        return true
    }
}
