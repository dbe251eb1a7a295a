import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TesseraWorkerProtocol

/// One running `tessera worker` process and its pipes, read and written on an event loop (no
/// thread per worker, and `send` never blocks its caller, even when the worker stops reading).
/// Events go to `onEvent` on the event loop; `onExit` is called once, when the process has ended
/// and its output is drained.
///
/// Threads: `send` and `kill` from any thread.
final class WorkerProcess: @unchecked Sendable {
    // `Process` is not Sendable; it is only asked for its pid and state after `run()`.
    private let process = Process()
    private let channel: EventLoopFuture<Channel>
    private let encoder = JSONEncoder()
    let pid: Int32

    /// `environment`: the worker's whole environment (nil: this process's), which tells it the
    /// log format, level and task before its start command arrives (`TesseraLogging`).
    init(executable: String, environment: [String: String]? = nil, onEvent: @escaping @Sendable (WorkerEvent) -> Void,
         onExit: @escaping @Sendable (_ status: Int32, _ signalled: Bool) -> Void) throws {
        let stdinPipe = Pipe(), stdoutPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["worker"]
        if let environment { process.environment = environment }
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
        let exit = ExitJoin(onExit)
        process.terminationHandler = { process in
            exit.processEnded(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
        }
        try process.run()
        pid = process.processIdentifier
        // The event loop owns copies of this side's ends; the originals close with the pipes.
        let events = dup(stdoutPipe.fileHandleForReading.fileDescriptor)
        let commands = dup(stdinPipe.fileHandleForWriting.fileDescriptor)
        try? stdoutPipe.fileHandleForReading.close()
        try? stdinPipe.fileHandleForWriting.close()
        channel = NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(NewlineFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(WorkerEventHandler(onEvent: onEvent, onEnd: exit.outputEnded))
                }
            }
            .takingOwnershipOfDescriptors(input: events, output: commands)
        channel.whenFailure { _ in exit.outputEnded() }
    }

    func send(_ command: WorkerCommand) {
        guard var data = try? encoder.encode(command) else { return }
        data.append(0x0A)
        let bytes = data
        channel.whenSuccess { channel in
            channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        }
    }

    func kill() { if process.isRunning { Foundation.kill(pid, SIGKILL) } }
}

/// Calls `onExit` once both the process has ended and its output has been read to the end, so
/// the worker's last event (its final status) is always handled before its exit.
private final class ExitJoin: Sendable {
    private struct State {
        var status: (Int32, Bool)?
        var drained = false
        var called = false
    }
    private let state = Mutex(State())
    private let onExit: @Sendable (Int32, Bool) -> Void

    init(_ onExit: @escaping @Sendable (Int32, Bool) -> Void) { self.onExit = onExit }

    func processEnded(status: Int32, signalled: Bool) {
        state.withLock { $0.status = (status, signalled) }
        fireIfDone()
    }

    func outputEnded() {
        state.withLock { $0.drained = true }
        fireIfDone()
    }

    private func fireIfDone() {
        let ready: (Int32, Bool)? = state.withLock { state in
            guard let status = state.status, state.drained, !state.called else { return nil }
            state.called = true
            return status
        }
        if let (status, signalled) = ready { onExit(status, signalled) }
    }
}

/// Splits the worker's standard output into lines (one JSON event each).
private struct NewlineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: 0x0A) else { return .needMoreData }
        let length = newline - buffer.readerIndex
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(Self.wrapInboundOut(rest))
        }
        return .needMoreData
    }
}

/// Decodes each line into a `WorkerEvent`; reports the end of the output once.
private final class WorkerEventHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let onEvent: @Sendable (WorkerEvent) -> Void
    private let onEnd: @Sendable () -> Void
    private let decoder = JSONDecoder()

    init(onEvent: @escaping @Sendable (WorkerEvent) -> Void, onEnd: @escaping @Sendable () -> Void) {
        self.onEvent = onEvent
        self.onEnd = onEnd
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        if let event = try? decoder.decode(WorkerEvent.self, from: Data(line.readableBytesView)) { onEvent(event) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        onEnd()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A worker that died leaves a broken pipe behind: close, and let channelInactive report it.
        context.close(promise: nil)
    }
}
