import Foundation

/// `GET /openapi.yaml`: the API of SPEC §3 as an OpenAPI 3.0 document, written by hand in
/// `Resources/openapi.yaml` and served byte for byte. Tests parse it and check it against the
/// router's routes and the Codable types. The schemas follow the validator's rules
/// (`TaskValidator`) with the default limits (`--max-*` flags may lower or raise them).
enum OpenAPIDocument {
    /// The file's bytes, read once; nil when the bundle lacks the file (the route then answers 500).
    /// A binary installed elsewhere finds `Tessera_TesseraServer.resources` beside itself.
    static let bytes: [UInt8]? = {
        guard let file = ServerResources.directory?.appendingPathComponent("openapi.yaml"),
              let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return Array(data)
    }()
}
