import CFFmpeg

/// A failure inside the media layer, with FFmpeg's own words when FFmpeg said something.
public struct MediaError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// FFmpeg's error code, when the failure came from FFmpeg.
    public let code: Int32?

    public init(_ message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }

    public var description: String {
        guard let code else { return message }
        return "\(message): \(FFmpeg.errorText(code))"
    }

    /// True when FFmpeg's interrupt callback stopped the call (cancel or deadline).
    public var isInterrupted: Bool { code == tessera_averror_exit() }
}

public enum FFmpeg {
    /// FFmpeg's text for an error code (`av_err2str` is a macro Swift cannot import).
    public static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        tessera_error_text(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Throws a `MediaError` naming `what` when an FFmpeg call returned a negative code.
    @discardableResult
    static func check(_ code: Int32, _ what: @autoclosure () -> String) throws -> Int32 {
        if code < 0 { throw MediaError(what(), code: code) }
        return code
    }

    static let eof = tessera_averror_eof()
    static let again = tessera_averror_eagain()
    static let noPTS = Int64.min

    /// Routes FFmpeg's log through one C callback at the given verbosity (errors only by default:
    /// libx264 alone prints a dozen statistics lines per encoder at FFmpeg's default level), and
    /// on to `FFmpegLog`'s sink.
    public static func configureLogging(verbose: Bool) {
        tessera_install_log_callback(verbose ? AV_LOG_INFO : AV_LOG_ERROR, FFmpegLog.callback)
    }
}

extension AVRational {
    var doubleValue: Double { den == 0 ? 0 : Double(num) / Double(den) }
}

/// Rescales `value` from one time base to another, rounding to nearest (`av_rescale_q`).
func rescale(_ value: Int64, from: AVRational, to: AVRational) -> Int64 {
    av_rescale_q(value, from, to)
}

let microsecondsTimeBase = AVRational(num: 1, den: 1_000_000)
