import CFFmpeg
import Foundation
import TesseraTask

/// A network output's destination took no bytes for `seconds` (its socket accepted nothing): the
/// connection is abandoned and the output reconnects.
public struct OutputStall: Error, CustomStringConvertible, Sendable, Equatable {
    public let seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public var description: String {
        "stalled: the destination accepted no bytes for \(OutputFault.format(seconds)) s; connection abandoned"
    }
}

/// The decisions about an output's faults and its end, apart from FFmpeg and threads so that each
/// is tested in milliseconds: the words an operator reads in `lastError`, the state an output
/// leaves behind when it ends, and the reason a task gives when all its outputs gave up.
public enum OutputFault {
    /// What an open that failed means, in words an operator acts on. `code` is FFmpeg's error
    /// code (nil when the failure was not FFmpeg's); `serverMessage` what the destination said
    /// (FFmpeg's "Server error: …" line, when it logged one); `text` the error as it was.
    public static func openFailure(kind: OutputKind, code: Int32?, serverMessage: String?, text: String,
                                   timeoutSeconds: Double) -> String {
        guard let code else { return text }
        if code == tessera_averror_exit() {
            return "no answer: the destination did not accept the stream within \(format(timeoutSeconds)) s"
        }
        if code == tessera_averror(ECONNREFUSED) {
            return "connection refused: nothing is listening at the destination's address (\(FFmpeg.errorText(code)))"
        }
        // An HTTP origin's 4xx (an HLS PUT asks first, so its answer is read): FFmpeg's words
        // ("Server returned 403 Forbidden (access denied)") say which.
        let ffmpegWords = FFmpeg.errorText(code)
        if ffmpegWords.hasPrefix("Server returned 4") { return "refused by the destination: \(ffmpegWords)" }
        guard kind == .rtmp else { return text }
        if let serverMessage, !serverMessage.isEmpty {
            return "refused by the RTMP server: \(serverMessage)"
        }
        // FFmpeg's RTMP client answers an error status from the server (NetStream.Publish.BadName,
        // a failed `connect`) with -1, and a server that hangs up instead (nginx-rtmp with an
        // unknown application or an `on_publish` check that said no) with EIO.
        if code == tessera_averror(EPERM) {
            return "refused by the RTMP server: it answered the publish with an error (wrong application or stream key, or publishing not allowed)"
        }
        if code == tessera_averror(EIO) {
            return "refused by the RTMP server: it closed the connection instead of accepting the stream (wrong application or stream key, or publishing not allowed)"
        }
        return text
    }

    /// The kinds of output whose faults read differently.
    public enum OutputKind: Sendable, Equatable { case rtmp, other }

    /// The state an output's thread leaves behind when it ends: always final. One that was live
    /// (or paused) when its task ended finished; one still trying to connect failed if it had
    /// failed to (its `lastError` says why), else it simply finished before it began.
    public static func finalState(_ state: Publisher.State, hasError: Bool) -> Publisher.State {
        switch state {
        case .finished, .failed: return state
        case .live, .paused: return .finished
        case .connecting, .reconnecting: return hasError ? .failed : .finished
        }
    }

    /// The task's end reason when every output gave up: each output (its URL redacted) and its
    /// last error. Nil while some output has not failed (or there is none).
    public static func allOutputsFailedReason(_ outputs: [(url: String, state: Publisher.State, lastError: String?)]) -> String? {
        guard !outputs.isEmpty, outputs.allSatisfy({ $0.state == .failed }) else { return nil }
        let named = outputs.enumerated().map { index, output in
            "outputs[\(index)] \(URLRedaction.redact(output.url)): \(output.lastError ?? "failed")"
        }
        let noun = outputs.count == 1 ? "its only output" : "all \(outputs.count) outputs"
        return "the task ended because \(noun) failed: " + named.joined(separator: "; ")
    }

    /// Seconds as an operator reads them: "10", "2.5".
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

/// What an RTMP server said when it refused (FFmpeg logs it as "Server error: …" and returns only
/// a code): kept per thread, so that the publisher whose open failed reads its own server's words.
/// FFmpeg's log callback hands every error-level line to `note`.
public enum RTMPServerMessage {
    private static let key = "tessera.rtmp.serverMessage"

    /// Keeps `message` if it is an RTMP server's refusal; called on the thread that logged it.
    public static func note(component: String?, message: String) {
        guard component == "rtmp", message.hasPrefix("Server error: ") else { return }
        Thread.current.threadDictionary[key] = String(message.dropFirst("Server error: ".count))
    }

    /// The message noted on this thread since the last `take` (and forgets it).
    static func take() -> String? {
        let dictionary = Thread.current.threadDictionary
        defer { dictionary.removeObject(forKey: key) }
        return dictionary[key] as? String
    }
}
