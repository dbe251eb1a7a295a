import CFFmpeg
import Foundation
import TesseraTask

/// Puts an HLS master playlist where its output says: a file replaced whole (written aside, then
/// renamed, so a player never reads half of it), or an HTTP `PUT` to the origin, as FFmpeg's HLS
/// muxer sends the media playlists beside it.
enum HLSMasterPlaylistWriter {
    static func write(_ text: String, to settings: HLSSettings, interrupt: InterruptFlag) throws {
        guard settings.overHTTP else {
            let url = URL(fileURLWithPath: settings.playlist)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
            return
        }
        // A dead origin must not hold the caller: the same 5 s a media playlist's open gets.
        interrupt.setDeadline(secondsFromNow: 5)
        defer { interrupt.setDeadline(secondsFromNow: nil) }
        var callback = interrupt.callback
        let options = OptionDictionary(["method": "PUT", "protocol_whitelist": "http,https,tcp,tls"])
        var io: UnsafeMutablePointer<AVIOContext>?
        try FFmpeg.check(avio_open2(&io, settings.playlist, AVIO_FLAG_WRITE, &callback, &options.pointer),
                         "cannot open the master playlist for writing")
        let bytes = Array(text.utf8)
        avio_write(io, bytes, Int32(bytes.count))
        avio_flush(io)
        let failed = io?.pointee.error ?? 0
        // Closing sends the end of the request and reads the origin's answer.
        let closed = avio_closep(&io)
        try FFmpeg.check(failed < 0 ? failed : closed, "cannot write the master playlist")
    }
}
