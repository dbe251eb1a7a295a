import Foundation
import TesseraTask

extension StorageSettings {
    /// Where a request for `key` in `bucket` goes: the URL's origin, the `Host` header and the
    /// path (decoded; the signer and `url` encode it).
    func address(bucket: String, key: String?) -> (origin: String, host: String, path: String) {
        let keyPath = key.map { "/" + $0 } ?? "/"
        if let endpoint, let url = URL(string: endpoint), let host = url.host {
            let scheme = url.scheme ?? "http"
            let defaultPort = scheme == "https" ? 443 : 80
            let hostHeader = url.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
            var origin = endpoint
            while origin.hasSuffix("/") { origin.removeLast() }
            return (origin, hostHeader, "/\(bucket)" + (key.map { "/" + $0 } ?? ""))
        }
        let host = "\(bucket).s3.\(region).amazonaws.com"
        return ("https://\(host)", host, keyPath)
    }
}
