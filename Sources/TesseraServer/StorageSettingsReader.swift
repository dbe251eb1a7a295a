import Foundation
import TesseraTask
import TesseraObjectStorage

/// `--storage-endpoint`, `--storage-region`, `--storage-spool-bytes` and the AWS credentials,
/// read under the names every S3 tool uses (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, or
/// `…_FILE` naming a secret file). Object storage is configured when an endpoint is given or
/// both credentials are; an endpoint without credentials is an error naming what is missing.
enum StorageSettingsReader {
    static let accessKeyVariable = "AWS_ACCESS_KEY_ID"
    static let secretKeyVariable = "AWS_SECRET_ACCESS_KEY"

    static func read(_ sources: SettingSources, environment: [String: String]) throws(ServeSettings.Invalid) -> StorageSettings? {
        let endpoint = try sources.string(.storageEndpoint).flatMap { $0.isEmpty ? nil : $0 }
        if let endpoint, let found = sources.find(.storageEndpoint) {
            let url = URL(string: endpoint)
            guard let scheme = url?.scheme?.lowercased(), scheme == "http" || scheme == "https", url?.host != nil else {
                throw sources.invalid(found, "expected an http:// or https:// URL with a host, got \"\(endpoint)\"")
            }
        }
        let region = try sources.string(.storageRegion) ?? StorageSettings.defaultRegion
        if let found = sources.find(.storageRegion), region.isEmpty || region.contains(where: { $0 == "/" || $0.isWhitespace }) {
            throw sources.invalid(found, "expected a region name such as us-east-1, got \"\(region)\"")
        }
        let spoolBytes = try sources.int(.storageSpoolBytes, (16 << 20)...Int.max).map(Int64.init) ?? StorageSettings.defaultSpoolBytes
        let accessKey = try secret(accessKeyVariable, environment)
        let secretKey = try secret(secretKeyVariable, environment)
        switch (accessKey, secretKey) {
        case (let accessKey?, let secretKey?):
            return StorageSettings(endpoint: endpoint, region: region, accessKeyId: accessKey, secretAccessKey: secretKey,
                                   spoolBytes: spoolBytes)
        case (nil, nil):
            guard endpoint != nil else { return nil }
            throw ServeSettings.Invalid(description: "\(ServeSetting.storageEndpoint.flag) needs credentials: set "
                                        + "\(accessKeyVariable) and \(secretKeyVariable) (or their _FILE variants)")
        case (nil, _):
            throw ServeSettings.Invalid(description: "\(secretKeyVariable) is set but \(accessKeyVariable) is not")
        case (_, nil):
            throw ServeSettings.Invalid(description: "\(accessKeyVariable) is set but \(secretKeyVariable) is not")
        }
    }

    /// `NAME` or the file `NAME_FILE` names (trailing newline ignored); both is an error.
    private static func secret(_ name: String, _ environment: [String: String]) throws(ServeSettings.Invalid) -> String? {
        let direct = environment[name].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment[name + "_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        switch (direct, file) {
        case (_?, _?):
            throw ServeSettings.Invalid(description: "\(name) and \(name)_FILE: give one of the two, not both")
        case (let value?, nil):
            return value
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ServeSettings.Invalid(description: "\(name)_FILE: cannot read \(path)")
            }
            let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { throw ServeSettings.Invalid(description: "\(name)_FILE: \(path) is empty") }
            return value
        case (nil, nil):
            return nil
        }
    }
}
