import Foundation

/// A show's timeline manifest (`{taskId}.timeline.json`, a document with a `timeline` object) names
/// its per-participant files relative to its own folder, so the folder can be moved or downloaded
/// from the store as a whole. The offline commands read such names against the manifest's folder,
/// wherever they run; every other document is left as it is.
enum TimelinePaths {
    static func resolved(_ data: Data, documentPath: String) -> Data {
        guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], object["timeline"] is [String: Any],
              var inputs = object["inputs"] as? [[String: Any]] else { return data }
        let folder = URL(fileURLWithPath: documentPath).deletingLastPathComponent().path
        func absolute(_ value: Any?) -> Any? {
            guard let url = value as? String, !url.isEmpty, !url.hasPrefix("/"), !url.contains("://") else { return value }
            return folder + "/" + url
        }
        for index in inputs.indices {
            if inputs[index]["url"] != nil { inputs[index]["url"] = absolute(inputs[index]["url"]) }
            if var sequence = inputs[index]["sequence"] as? [[String: Any]] {
                for part in sequence.indices where sequence[part]["url"] != nil { sequence[part]["url"] = absolute(sequence[part]["url"]) }
                inputs[index]["sequence"] = sequence
            }
        }
        object["inputs"] = inputs
        return (try? JSONSerialization.data(withJSONObject: object)) ?? data
    }
}
