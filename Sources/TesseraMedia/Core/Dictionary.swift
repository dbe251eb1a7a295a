import CFFmpeg

/// Builds an `AVDictionary` of options for one FFmpeg call and frees what the call left unused.
final class OptionDictionary {
    var pointer: OpaquePointer?

    init(_ options: [String: String] = [:]) {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&pointer, key, value, 0) }
    }

    deinit { av_dict_free(&pointer) }

    /// Keys FFmpeg did not consume (misspelled or not applicable), for warnings.
    var remainingKeys: [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys
    }
}
