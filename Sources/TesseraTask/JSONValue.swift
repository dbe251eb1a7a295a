import Foundation

/// A JSON value exactly as a caller wrote it. The task reader walks this tree by hand (rather than
/// through `Decodable`) so that it can report every wrong, missing and unknown field with its path,
/// not only the first one `JSONDecoder` trips over.
public enum JSONValue: Sendable, Equatable, Hashable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Parses UTF-8 JSON text (RFC 8259). Duplicate object keys are refused: with two `"width"`
    /// fields nobody can tell which one the caller meant.
    /// - Parameter maxDepth: nesting limit, so hostile input cannot exhaust the stack.
    public static func parse(_ data: Data, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data), maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// A short name of the value's type, for messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// Why a text is not JSON, with the 1-based line and column where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    public init(message: String, line: Int, column: Int) { self.message = message; self.line = line; self.column = column }
    public var description: String { "malformed JSON at line \(line), column \(column): \(message)" }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before Double: some decoders would otherwise read `true` as 1.
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}
