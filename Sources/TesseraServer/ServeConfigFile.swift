import Foundation
import TesseraTask

/// The optional JSON config file of `tessera serve` (`--config FILE`, `TESSERA_CONFIG`): one object
/// whose keys are setting names (`{"port": 8080, "rtpPorts": "20000-20999"}`). It is the lowest
/// layer under flags and environment. An unknown key is an error rather than ignored: a typo such
/// as `"maxTask"` would otherwise silently leave the default in force.
struct ServeConfigFile {
    /// The file as given, for messages.
    let path: String
    /// What relative paths in the file (`mediaRoot`, `apiTokenFile`, …) resolve against: the
    /// file's own directory, so the file means the same whichever directory the server starts in.
    let directory: String
    let values: [ServeSetting: JSONValue]

    /// Reads and checks the file's shape; value types are checked where each setting is read.
    init(path: String, workingDirectory: String) throws(ServeSettings.Invalid) {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: workingDirectory, isDirectory: true))
            .standardizedFileURL
        self.path = path
        directory = url.deletingLastPathComponent().path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ServeSettings.Invalid(description: "config file \(path): cannot be read (\(Self.reason(error)))")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw ServeSettings.Invalid(description: "config file \(path): \(error)")
        }
        guard case .object(let object) = document else {
            throw ServeSettings.Invalid(description: "config file \(path): expected a JSON object, got \(document.typeName)")
        }
        var values: [ServeSetting: JSONValue] = [:]
        for key in object.keys.sorted() {
            guard let setting = ServeSetting(rawValue: key) else {
                let known = ServeSetting.allCases.map(\.key).joined(separator: ", ")
                throw ServeSettings.Invalid(description: "config file \(path): unknown key \"\(key)\" (known keys: \(known))")
            }
            values[setting] = object[key]
        }
        self.values = values
    }

    /// "No such file or directory" rather than Foundation's long wrapper text.
    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying?.localizedDescription ?? error.localizedDescription
    }
}
