import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Carries out `LingeringClose` on one connection: sits between the HTTP/1 codec and
/// Hummingbird's request handling, marks an early answer `Connection: close`, and after it drops
/// the rest of the body here, as it arrives, so nothing is buffered.
///
/// Reading goes on whatever the request handling does: Hummingbird stops reading a connection
/// once a `Connection: close` request has been answered, and the parts already handed to it hold
/// its back-pressure shut, so while lingering this handler asks for each next read itself.
///
/// Threads: one instance per connection, on that connection's event loop only.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var machine: LingeringClose
    private var lingerTimeout: Scheduled<Void>?
    /// Completes when the last response end written has left (close only after the answer).
    private var answerWritten: EventLoopFuture<Void>?
    private var closing = false

    init(limits: LingeringClose.Limits = .standard) { machine = LingeringClose(limits: limits) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: LingeringClose.InboundAction
        switch unwrapInboundIn(data) {
        case .head: action = machine.requestHead()
        case .body(let buffer): action = machine.requestBody(bytes: buffer.readableBytes)
        case .end: action = machine.requestEnd()
        }
        switch action {
        case .forward: context.fireChannelRead(data)
        case .discard: break
        case .close: closeAfterAnswer(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        if machine.isLingering && !closing { context.read() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if machine.responseHead() {
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
        case .body:
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            switch machine.responseEnd() {
            case .none:
                break
            case .linger(let seconds):
                answerWritten = written.futureResult
                let loop = context.eventLoop.assumeIsolated()
                lingerTimeout = loop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) { [self] in
                    if machine.lingerTimeExpired() { closeAfterAnswer(context: context) }
                }
                // Reading may have been paused by the request handling's back-pressure.
                context.read()
            case .close:
                answerWritten = written.futureResult
                closeAfterAnswer(context: context)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerTimeout?.cancel()
        lingerTimeout = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingerTimeout?.cancel()
        lingerTimeout = nil
    }

    /// Closes once the answer has been written (at once if it has; a flush is issued so that a
    /// response end still in the pipeline is not held back).
    private func closeAfterAnswer(context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        lingerTimeout?.cancel()
        lingerTimeout = nil
        context.flush()
        guard let answerWritten else {
            context.close(promise: nil)
            return
        }
        answerWritten.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

@available(*, unavailable)
extension LingeringCloseHandler: Sendable {}
