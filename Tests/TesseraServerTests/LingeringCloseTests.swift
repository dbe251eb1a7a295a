import Testing
import TesseraServer

/// The lingering close as a state machine: which parts pass, which are dropped, when it closes.
/// (Its calls are mutating, so each result is taken before it is checked.)
@Suite struct LingeringCloseTests {
    private let limits = LingeringClose.Limits(maxBytes: 100, maxSeconds: 3)

    @Test func aRequestReadInFullIsAnsweredAndKeptAlive() {
        var machine = LingeringClose(limits: limits)
        let inbound = [machine.requestHead(), machine.requestBody(bytes: 500), machine.requestEnd()]
        #expect(inbound == [.forward, .forward, .forward])
        let marksClose = machine.responseHead()
        let afterAnswer = machine.responseEnd()
        #expect(!marksClose && afterAnswer == .none && !machine.isLingering)
        // The next request on the same connection is served as usual.
        let next = [machine.requestHead(), machine.requestEnd()]
        let nextMarksClose = machine.responseHead()
        #expect(next == [.forward, .forward] && !nextMarksClose)
    }

    @Test func anEarlyAnswerClosesAndTheRestOfTheBodyIsDiscarded() {
        var machine = LingeringClose(limits: limits)
        let before = [machine.requestHead(), machine.requestBody(bytes: 10)]
        #expect(before == [.forward, .forward])
        let marksClose = machine.responseHead()
        #expect(marksClose, "an answer before the body ends says Connection: close")
        let whileAnswering = machine.requestBody(bytes: 10)
        #expect(whileAnswering == .forward, "until the answer is written the handler may still read")
        let afterAnswer = machine.responseEnd()
        #expect(afterAnswer == .linger(maxSeconds: 3) && machine.isLingering)
        let rest = [machine.requestBody(bytes: 60), machine.requestBody(bytes: 40)]
        #expect(rest == [.discard, .discard], "100 bytes after the answer: at the limit")
        let end = machine.requestEnd()
        #expect(end == .close, "the body ended: close")
    }

    @Test func aBodyPastTheByteLimitIsCutOff() {
        var machine = LingeringClose(limits: limits)
        _ = machine.requestHead()
        _ = machine.responseHead()
        _ = machine.responseEnd()
        let actions = [machine.requestBody(bytes: 100), machine.requestBody(bytes: 1), machine.requestBody(bytes: 1)]
        #expect(actions == [.discard, .close, .close])
    }

    @Test func theTimeLimitClosesOnlyWhileLingering() {
        var idle = LingeringClose(limits: limits)
        let idleExpiry = idle.lingerTimeExpired()
        #expect(!idleExpiry)
        var machine = LingeringClose(limits: limits)
        _ = machine.requestHead()
        _ = machine.responseHead()
        _ = machine.responseEnd()
        let expiries = [machine.lingerTimeExpired(), machine.lingerTimeExpired()]
        #expect(expiries == [true, false], "closed once")
    }

    @Test func aBodyThatEndsBeforeTheEarlyAnswerIsWrittenClosesAfterIt() {
        var machine = LingeringClose(limits: limits)
        _ = machine.requestHead()
        let marksClose = machine.responseHead()
        let end = machine.requestEnd()
        let afterAnswer = machine.responseEnd()
        #expect(marksClose && end == .forward && afterAnswer == .close)
    }

    @Test func nothingMoreIsServedAfterARefusedBody() {
        var machine = LingeringClose(limits: limits)
        _ = machine.requestHead()
        _ = machine.responseHead()
        _ = machine.responseEnd()
        let pipelined = machine.requestHead()
        #expect(pipelined == .close, "a pipelined request after a refused body")
    }
}
