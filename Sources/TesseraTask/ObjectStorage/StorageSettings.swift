import Foundation

/// The node's object store (`--storage-endpoint`, `--storage-region`, `AWS_ACCESS_KEY_ID` /
/// `AWS_SECRET_ACCESS_KEY`, `--storage-spool-bytes`). Never part of a task document or status:
/// the server hands it to each worker on its command pipe.
public struct StorageSettings: Codable, Sendable, Equatable, CustomStringConvertible {
    /// `http(s)://HOST[:PORT]` of an S3-compatible service, addressed path-style
    /// (`ENDPOINT/BUCKET/KEY`); nil: AWS S3, addressed `https://BUCKET.s3.REGION.amazonaws.com/KEY`.
    public var endpoint: String?
    public var region: String
    public var accessKeyId: String
    public var secretAccessKey: String
    /// Most bytes recorded but not yet uploaded, over a worker's uploads (`SpoolBudget`).
    public var spoolBytes: Int64

    public static let defaultRegion = "us-east-1"
    public static let defaultSpoolBytes: Int64 = 1 << 30

    public init(endpoint: String?, region: String = StorageSettings.defaultRegion, accessKeyId: String, secretAccessKey: String,
                spoolBytes: Int64 = StorageSettings.defaultSpoolBytes) {
        self.endpoint = endpoint; self.region = region; self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey; self.spoolBytes = spoolBytes
    }

    /// Without the secret.
    public var description: String {
        "\(endpoint ?? "AWS S3") (\(region), key \(accessKeyId), spool \(spoolBytes) bytes)"
    }
}
