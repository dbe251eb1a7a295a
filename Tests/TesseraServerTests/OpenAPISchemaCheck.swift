import Foundation
import TesseraWorkerProtocol

/// Checks JSON values (as `JSONSerialization` reads them) against the schemas of the parsed OpenAPI
/// document: every key a value has is declared, every required key is there, nested objects,
/// arrays and `$ref`s alike. It also records which declared properties the samples used, so a test
/// can ask that full samples reach every property the document promises.
final class OpenAPISchemaCheck {
    private let schemas: [String: Any]
    private(set) var problems: [String] = []
    /// `Schema.property` (`InputStatus.packets.lost` for an inline object) seen in a sample.
    private(set) var used: Set<String> = []

    init(document: [String: Any]) {
        schemas = yamlMap(yamlMap(document["components"])?["schemas"]) ?? [:]
    }

    /// Checks `json` (encoded bytes) against `#/components/schemas/<name>`.
    func check(_ json: Data, against name: String, sample: String) throws {
        let value = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        guard let schema = yamlMap(schemas[name]) else {
            problems.append("\(sample): no schema \(name)")
            return
        }
        check(value, schema, name: name, at: sample)
    }

    /// Every property a schema declares, named as `used` names them; `$ref`s are their own schemas.
    func declaredProperties(of name: String) -> Set<String> {
        declared(yamlMap(schemas[name]) ?? [:], name: name)
    }

    private func declared(_ schema: [String: Any], name: String) -> Set<String> {
        var names: Set<String> = []
        for (key, property) in yamlMap(schema["properties"]) ?? [:] {
            names.insert("\(name).\(key)")
            guard let property = yamlMap(property), property["$ref"] == nil else { continue }
            let inner = yamlMap(property["items"]) ?? property
            if inner["$ref"] == nil { names.formUnion(declared(inner, name: "\(name).\(key)")) }
        }
        return names
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String else { return schema }
        let name = String(ref.split(separator: "/").last ?? "")
        return yamlMap(schemas[name]) ?? [:]
    }

    private func check(_ value: Any, _ raw: [String: Any], name: String, at path: String) {
        let schema = resolve(raw)
        let name = (raw["$ref"] as? String).map { String($0.split(separator: "/").last ?? "") } ?? name
        if let array = value as? [Any] {
            guard let items = yamlMap(schema["items"]) else {
                problems.append("\(path): an array where \(name) is \(schema["type"] ?? "untyped")")
                return
            }
            for (index, element) in array.enumerated() { check(element, items, name: name, at: "\(path)[\(index)]") }
            return
        }
        guard let object = value as? [String: Any] else { return }
        let properties = yamlMap(schema["properties"])
        for key in (schema["required"] as? [Any] ?? []).compactMap({ $0 as? String }) where object[key] == nil {
            problems.append("\(path): required \(key) missing")
        }
        for (key, element) in object {
            if let property = yamlMap(properties?[key]) {
                used.insert("\(name).\(key)")
                check(element, property, name: "\(name).\(key)", at: "\(path).\(key)")
            } else if let additional = yamlMap(schema["additionalProperties"]) {
                check(element, additional, name: name, at: "\(path).\(key)")
            } else {
                problems.append("\(path): \(key) is not declared in \(name)")
            }
        }
    }
}

/// Yams reads a mapping as `[AnyHashable: Any]` or `[String: Any]` depending on its version.
func yamlMap(_ value: Any?) -> [String: Any]? {
    if let map = value as? [String: Any] { return map }
    guard let map = value as? [AnyHashable: Any] else { return nil }
    return Dictionary(uniqueKeysWithValues: map.compactMap { key, value in (key.base as? String).map { ($0, value) } })
}
