import Foundation

/// `StatusReport.files` is stored as JSON text in both stores (a column of its own would need a
/// second table for a map that is only ever read and written whole).
enum FilesCoding {
    static func encode(_ files: [String: [String]]) throws -> String {
        let encoder = JSONEncoder()
        // Sorted keys: the same map always gives the same text, which keeps rows comparable.
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(files), as: UTF8.self)
        } catch {
            throw TaskStoreError("store: cannot encode the files of a status report: \(error)")
        }
    }

    static func decode(_ text: String?, taskId: String) throws -> [String: [String]] {
        guard let text, !text.isEmpty else { return [:] }
        do {
            return try JSONDecoder().decode([String: [String]].self, from: Data(text.utf8))
        } catch {
            throw TaskStoreError("store: task \(taskId) has unreadable files JSON: \(error)")
        }
    }
}
