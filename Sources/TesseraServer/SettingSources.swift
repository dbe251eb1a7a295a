import Foundation
import TesseraTask

/// The three layers a setting can come from, searched in order of precedence: flag, environment
/// variable, config file. Each typed read checks the value as strictly whichever layer it came
/// from, and an error names where the bad value was written (`--port`, `TESSERA_PORT`, or the
/// file and key), so the user knows which of the three to fix.
struct SettingSources {
    let flags: [ServeSetting: String]
    let environment: [String: String]
    let file: ServeConfigFile?
    let workingDirectory: String

    /// A value as written, where it was written, and what relative paths in it resolve against.
    struct Found {
        enum Raw { case text(String), json(JSONValue) }
        var raw: Raw
        var origin: String
        var baseDirectory: String
    }

    /// The highest layer that sets `setting`. An empty environment variable counts as unset, as
    /// shells and compose files often leave `VAR=` behind.
    func find(_ setting: ServeSetting) -> Found? {
        if let value = flags[setting] {
            return Found(raw: .text(value), origin: setting.flag, baseDirectory: workingDirectory)
        }
        if let value = environment[setting.environmentVariable], !value.isEmpty {
            return Found(raw: .text(value), origin: setting.environmentVariable, baseDirectory: workingDirectory)
        }
        if let file, let value = file.values[setting] {
            return Found(raw: .json(value), origin: "config file \(file.path): key \"\(setting.key)\"",
                         baseDirectory: file.directory)
        }
        return nil
    }

    // MARK: Typed reads

    func string(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> String? {
        try stringFound(setting)?.value
    }

    /// An integer setting, checked against its range in `ServeSetting.bounds`.
    func int(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> Int? {
        guard case .integer(let range)? = setting.bounds else { preconditionFailure("\(setting) is not an integer setting") }
        return try int(setting, range)
    }

    /// A number setting, checked against its range in `ServeSetting.bounds`.
    func double(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> Double? {
        guard case .number(let range)? = setting.bounds else { preconditionFailure("\(setting) is not a number setting") }
        return try double(setting, range)
    }

    func int(_ setting: ServeSetting, _ range: ClosedRange<Int>) throws(ServeSettings.Invalid) -> Int? {
        guard let found = find(setting) else { return nil }
        let value: Int
        switch found.raw {
        case .text(let text):
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw invalid(found, "expected an integer, got \"\(text)\"")
            }
            value = parsed
        case .json(.number(let number)):
            guard number == number.rounded(), abs(number) < 9e15 else { throw invalid(found, "expected an integer, got \(number)") }
            value = Int(number)
        case .json(let other):
            throw invalid(found, "expected an integer, got \(other.typeName)")
        }
        guard range.contains(value) else {
            throw invalid(found, "must be from \(range.lowerBound) to \(range.upperBound), got \(value)")
        }
        return value
    }

    func double(_ setting: ServeSetting, _ range: ClosedRange<Double>) throws(ServeSettings.Invalid) -> Double? {
        guard let found = find(setting) else { return nil }
        let value: Double
        switch found.raw {
        case .text(let text):
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite else {
                throw invalid(found, "expected a number, got \"\(text)\"")
            }
            value = parsed
        case .json(.number(let number)):
            value = number
        case .json(let other):
            throw invalid(found, "expected a number, got \(other.typeName)")
        }
        guard range.contains(value) else {
            throw invalid(found, "must be from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)), "
                                 + "got \(Self.plain(value))")
        }
        return value
    }

    /// A directory or file path made absolute against its layer's base directory.
    func path(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> String? {
        guard let found = try stringFound(setting) else { return nil }
        return Self.absolute(found.value, base: found.found.baseDirectory)
    }

    /// A comma-separated list; in the config file also a JSON array of strings.
    func list(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> [String]? {
        guard let found = find(setting) else { return nil }
        let items: [String]
        switch found.raw {
        case .text(let text), .json(.string(let text)):
            items = text.split(separator: ",").map(String.init)
        case .json(.array(let elements)):
            items = try elements.map { element throws(ServeSettings.Invalid) in
                guard case .string(let text) = element else {
                    throw invalid(found, "expected an array of strings, found \(element.typeName) in it")
                }
                return text
            }
        case .json(let other):
            throw invalid(found, "expected a comma-separated string or an array of strings, got \(other.typeName)")
        }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A secret given directly (`setting`) or as a file holding it (`fileSetting`), whichever
    /// layer comes first; both in the same layer is an error, since one would silently lose.
    func secret(_ setting: ServeSetting, file fileSetting: ServeSetting) throws(ServeSettings.Invalid) -> String? {
        let direct = find(setting)
        let file = find(fileSetting)
        switch (direct, file) {
        case (nil, nil):
            return nil
        case (let direct?, let file?) where layer(of: direct) == layer(of: file):
            throw ServeSettings.Invalid(description: "\(direct.origin) and \(file.origin): give one of the two, not both")
        case (let direct?, let file?) where layer(of: file) < layer(of: direct):
            return try readSecret(fileSetting)
        case (.some, _):
            return try string(setting)
        case (nil, .some):
            return try readSecret(fileSetting)
        }
    }

    func invalid(_ found: Found, _ message: String) -> ServeSettings.Invalid {
        ServeSettings.Invalid(description: "\(found.origin): \(message)")
    }

    // MARK: Private

    private func stringFound(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> (value: String, found: Found)? {
        guard let found = find(setting) else { return nil }
        switch found.raw {
        case .text(let text), .json(.string(let text)): return (text, found)
        case .json(let other): throw invalid(found, "expected a string, got \(other.typeName)")
        }
    }

    private func readSecret(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> String? {
        guard let (_, found) = try stringFound(setting), let path = try self.path(setting) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw invalid(found, "cannot read \(path)")
        }
        // A file written by `echo` ends in a newline that is not part of the secret.
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw invalid(found, "\(path) is empty") }
        return secret
    }

    /// 0 for a flag, 1 for the environment, 2 for the config file: lower wins.
    private func layer(of found: Found) -> Int {
        if found.origin.hasPrefix("--") { return 0 }
        if case .text = found.raw { return 1 }
        return 2
    }

    static func absolute(_ path: String, base: String) -> String {
        URL(fileURLWithPath: path, isDirectory: true, relativeTo: URL(fileURLWithPath: base, isDirectory: true))
            .standardizedFileURL.path
    }

    /// `2.5` as `2.5` and `10.0` as `10`, for messages.
    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
