import Foundation
import TesseraTask

/// The files of one participant's recording: `room42-guest.mkv`, after a rejoin
/// `room42-guest.1.mkv`, … (`RecordingFileNames`), never one that exists.
public enum ParticipantFileNames {
    /// A template's path for one input: every `{input}` replaced by its id.
    public static func path(template: String, input: String) -> String {
        template.replacingOccurrences(of: "{input}", with: input)
    }

    /// The index of the next file after `lastIndex` (nil: the first file of this run), the first
    /// whose path does not exist.
    public static func nextIndex(after lastIndex: Int?, path: String, exists: (String) -> Bool) -> Int {
        guard let lastIndex else {
            return exists(path) ? RecordingFileNames.nextIndex(after: 0, path: path, exists: exists) : 0
        }
        return RecordingFileNames.nextIndex(after: lastIndex, path: path, exists: exists)
    }
}
