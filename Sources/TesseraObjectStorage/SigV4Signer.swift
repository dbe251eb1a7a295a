import Crypto
import Foundation

/// AWS Signature Version 4 for requests sent with their signature in the `Authorization` header.
/// Pure: the clock is an argument, so AWS's published test vectors check it byte for byte.
///
/// The steps (AWS's "Create a signed AWS API request"):
///
///     canonical request = METHOD \n URI \n QUERY \n name:value\n… \n signed;names \n payload hash
///     string to sign    = AWS4-HMAC-SHA256 \n 20150830T123600Z \n 20150830/region/service/aws4_request \n hex(sha256(canonical))
///     signing key       = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")
///     signature         = hex(HMAC(signing key, string to sign))
public struct SigV4Signer: Sendable {
    public struct Credentials: Sendable, Equatable {
        public var accessKeyId: String
        public var secretAccessKey: String
        public init(accessKeyId: String, secretAccessKey: String) {
            self.accessKeyId = accessKeyId; self.secretAccessKey = secretAccessKey
        }
    }

    /// What is signed. `path` and `query` are given decoded; they are encoded here the way S3
    /// expects (each path segment once, RFC 3986 unreserved characters kept).
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(name: String, value: String)]
        /// Every header to sign, `host` included (as sent: `host:port` when the port is not the scheme's).
        public var headers: [(name: String, value: String)]
        /// Lower-case hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
        public var payloadHash: String

        public init(method: String, path: String, query: [(name: String, value: String)] = [],
                    headers: [(name: String, value: String)], payloadHash: String) {
            self.method = method; self.path = path; self.query = query; self.headers = headers; self.payloadHash = payloadHash
        }
    }

    public let credentials: Credentials
    public let region: String
    public let service: String

    public init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials; self.region = region; self.service = service
    }

    /// SHA-256 of the empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public static func payloadHash(_ body: some DataProtocol) -> String { hex(SHA256.hash(data: body)) }

    /// The request's headers with `x-amz-date` and `Authorization` added.
    public func sign(_ request: Request, at date: Date) -> [(name: String, value: String)] {
        let amzDate = Self.amzDate(date)
        var headers = request.headers.filter { $0.name.lowercased() != "x-amz-date" }
        headers.append((name: "x-amz-date", value: amzDate))
        return headers + [(name: "Authorization", value: authorization(request, headers: headers, amzDate: amzDate))]
    }

    /// The `Authorization` header for `request` whose headers already hold `x-amz-date: amzDate`.
    public func authorization(_ request: Request, headers: [(name: String, value: String)], amzDate: String) -> String {
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let (canonical, signedHeaders) = Self.canonicalRequest(request, headers: headers)
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonical.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// The canonical request and its signed-header list.
    public static func canonicalRequest(_ request: Request, headers: [(name: String, value: String)]) -> (String, String) {
        let path = request.path.isEmpty ? "/" : request.path.split(separator: "/", omittingEmptySubsequences: false)
            .map { encode(String($0)) }.joined(separator: "/")
        let pairs: [(name: String, value: String)] = request.query.map { (encode($0.name), encode($0.value)) }
        let sorted = pairs.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        let query = sorted.map { pair -> String in pair.name + "=" + pair.value }.joined(separator: "&")
        // Names lower-cased, values trimmed with inner runs of spaces made one; repeated names joined by commas.
        var byName: [String: [String]] = [:]
        for (name, value) in headers {
            let folded = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            byName[name.lowercased(), default: []].append(folded.trimmingCharacters(in: .whitespaces))
        }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        return ([request.method, path, query, canonicalHeaders, signed, request.payloadHash].joined(separator: "\n"), signed)
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (`A–Z a–z 0–9 - . _ ~`).
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// `20150830T123600Z`: the UTC time, to the second.
    public static func amzDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
