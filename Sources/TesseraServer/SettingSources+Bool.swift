import Foundation

extension SettingSources {
    /// `true` or `false` (also `1` / `0`, `yes` / `no`, `on` / `off`, any case) from a flag or a
    /// variable; a JSON boolean (or one of those strings) in the config file.
    func bool(_ setting: ServeSetting) throws(ServeSettings.Invalid) -> Bool? {
        guard let found = find(setting) else { return nil }
        switch found.raw {
        case .json(.bool(let value)):
            return value
        case .text(let text), .json(.string(let text)):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw invalid(found, "expected true or false, got \"\(text)\"")
            }
        case .json(let other):
            throw invalid(found, "expected true or false, got \(other.typeName)")
        }
    }
}
