import CFFmpeg
import Foundation
import Synchronization

/// Where FFmpeg's own messages go: the C callback (`tessera_log_callback` in the shim) formats
/// each one and hands it here; a process routes them into its logger once, at start
/// (`route`), so they carry the task's id and a level like every other line. Until then (or in a
/// tool that never routes them) they are printed to standard error with an `ffmpeg:` prefix.
public enum FFmpegLog {
    /// FFmpeg's level (`AV_LOG_ERROR` = 16, `AV_LOG_WARNING` = 24, ...), the name of the context
    /// that logged (`tcp`, `rtmp`, `libx264`; nil when none) and the message, without its newline.
    public typealias Sink = @Sendable (_ level: Int32, _ component: String?, _ message: String) -> Void

    private static let sink = Mutex<Sink?>(nil)

    /// Sends every later FFmpeg message to `newSink` (any thread may call it, as FFmpeg's do).
    public static func route(_ newSink: @escaping Sink) { sink.withLock { $0 = newSink } }

    /// The C callback's Swift half: no captures, so it converts to a C function pointer.
    static let callback: tessera_log_sink_fn = { level, component, message in
        guard let message else { return }
        var text = String(cString: message)
        while let last = text.last, last.isNewline || last == " " { text.removeLast() }
        if text.isEmpty { return }
        let name = component.map { String(cString: $0) }
        // An RTMP server's refusal reaches Tessera only here: kept for the publisher that opened it.
        if level <= AV_LOG_ERROR { RTMPServerMessage.note(component: name, message: text) }
        if let routed = sink.withLock({ $0 }) {
            routed(level, name, text)
        } else {
            let line = "ffmpeg: " + (name.map { "[\($0)] " } ?? "") + text + "\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}
