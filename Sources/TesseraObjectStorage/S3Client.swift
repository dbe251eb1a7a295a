import AsyncHTTPClient
import Foundation
import TesseraTask
import NIOCore
import NIOHTTP1

/// The S3 calls a recording needs, signed with SigV4, sent with AsyncHTTPClient. Blocking: each
/// call waits for its answer, so it is only called from the uploader's own thread, never from
/// the pipeline's or an event loop. Every call has a deadline; a failure is an `S3Failure`
/// saying whether a retry may help.
public final class S3Client: Sendable {
    private let settings: StorageSettings
    private let signer: SigV4Signer
    private let http: HTTPClient

    public init(_ settings: StorageSettings) {
        self.settings = settings
        signer = SigV4Signer(credentials: .init(accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey),
                             region: settings.region)
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(30))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() { try? http.syncShutdown() }

    // MARK: Calls

    /// Whether the bucket exists and these credentials may use it. `GetBucketLocation` rather
    /// than `HEAD`: its error answers have a body, so the reason (`NoSuchBucket`,
    /// `InvalidAccessKeyId`, `SignatureDoesNotMatch`) can be told.
    public func checkBucket(_ bucket: String) throws(S3Failure) {
        _ = try send("GET", bucket: bucket, key: nil, query: [("location", "")], timeoutSeconds: 5)
    }

    public func putObject(_ bucket: String, key: String, body: Data, contentType: String) throws(S3Failure) {
        _ = try send("PUT", bucket: bucket, key: key, body: body, headers: [("Content-Type", contentType)])
    }

    public func getObject(_ bucket: String, key: String, timeoutSeconds: Int64 = 30) throws(S3Failure) -> Data? {
        do {
            return try send("GET", bucket: bucket, key: key, timeoutSeconds: timeoutSeconds).body
        } catch where error.status == 404 && error.code != "NoSuchBucket" {
            return nil
        }
    }

    /// An object's size and ETag; nil when there is no such key.
    public func headObject(_ bucket: String, key: String) throws(S3Failure) -> (bytes: Int64, etag: String?)? {
        do {
            let answer = try send("HEAD", bucket: bucket, key: key, timeoutSeconds: 10)
            return (answer.contentLength ?? 0, answer.etag)
        } catch where error.status == 404 && error.code != "NoSuchBucket" {
            return nil
        }
    }

    public func deleteObject(_ bucket: String, key: String) throws(S3Failure) {
        _ = try send("DELETE", bucket: bucket, key: key)
    }

    public func createMultipartUpload(_ bucket: String, key: String, contentType: String) throws(S3Failure) -> String {
        let answer = try send("POST", bucket: bucket, key: key, query: [("uploads", "")], headers: [("Content-Type", contentType)])
        guard let id = S3XML.uploadId(String(decoding: answer.body, as: UTF8.self)) else {
            throw S3Failure(status: answer.status, code: nil, message: "no UploadId in the answer to CreateMultipartUpload")
        }
        return id
    }

    /// Sends one part; returns its ETag.
    public func uploadPart(_ bucket: String, key: String, uploadId: String, number: Int, body: Data) throws(S3Failure) -> String {
        let answer = try send("PUT", bucket: bucket, key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)],
                              body: body, timeoutSeconds: 120)
        guard let etag = answer.etag else {
            throw S3Failure(status: answer.status, code: nil, message: "no ETag in the answer to UploadPart")
        }
        return etag
    }

    public func completeMultipartUpload(_ bucket: String, key: String, uploadId: String, parts: [S3XML.Part]) throws(S3Failure) {
        let body = Data(S3XML.completion(parts).utf8)
        let answer = try send("POST", bucket: bucket, key: key, query: [("uploadId", uploadId)], body: body,
                              headers: [("Content-Type", "application/xml")], timeoutSeconds: 120)
        // S3 may answer 200 and report the failure in the body.
        if let error = S3XML.error(String(decoding: answer.body, as: UTF8.self)) {
            throw S3Failure(status: answer.status, code: error.code, message: error.message)
        }
    }

    public func abortMultipartUpload(_ bucket: String, key: String, uploadId: String) throws(S3Failure) {
        _ = try send("DELETE", bucket: bucket, key: key, query: [("uploadId", uploadId)])
    }

    /// Multipart uploads open in `bucket` under `prefix` (every page).
    public func listMultipartUploads(_ bucket: String, prefix: String, timeoutSeconds: Int64 = 30) throws(S3Failure) -> [S3XML.Upload] {
        try allPages { markers throws(S3Failure) in
            let query = [("uploads", ""), ("prefix", prefix)] + markers.map { ($0.key, $0.value) }
            let answer = try send("GET", bucket: bucket, key: nil, query: query, timeoutSeconds: timeoutSeconds)
            return S3XML.uploads(String(decoding: answer.body, as: UTF8.self))
        }
    }

    /// The parts of an open multipart upload (every page).
    public func listParts(_ bucket: String, key: String, uploadId: String, timeoutSeconds: Int64 = 30) throws(S3Failure) -> [S3XML.Part] {
        try allPages { markers throws(S3Failure) in
            let query = [("uploadId", uploadId)] + markers.map { ($0.key, $0.value) }
            let answer = try send("GET", bucket: bucket, key: key, query: query, timeoutSeconds: timeoutSeconds)
            return S3XML.parts(String(decoding: answer.body, as: UTF8.self))
        }
    }

    /// Every page of a listing (at most 100): `page` fetches one, given the last one's markers.
    private func allPages<Item>(_ page: ([String: String]) throws(S3Failure) -> S3XML.Page<Item>) throws(S3Failure) -> [Item] {
        var found: [Item] = []
        var markers: [String: String] = [:]
        for _ in 0..<100 {
            let next = try page(markers)
            found += next.items
            guard let more = next.nextMarkers, !more.isEmpty else { break }
            markers = more
        }
        return found
    }

    // MARK: Sending

    private struct Answer {
        var status: Int
        var etag: String?
        var body: Data
        var contentLength: Int64? = nil
    }

    private func send(_ method: String, bucket: String, key: String?, query: [(String, String)] = [], body: Data = Data(),
                      headers extra: [(String, String)] = [], timeoutSeconds: Int64 = 30) throws(S3Failure) -> Answer {
        let (origin, host, path) = settings.address(bucket: bucket, key: key)
        let payloadHash = body.isEmpty ? SigV4Signer.emptyPayloadHash : SigV4Signer.payloadHash(body)
        let request = SigV4Signer.Request(
            method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: [(name: "Host", value: host), (name: "x-amz-content-sha256", value: payloadHash)]
                + extra.map { (name: $0.0, value: $0.1) },
            payloadHash: payloadHash)
        let signed = signer.sign(request, at: Date())
        let encodedPath = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { SigV4Signer.encode(String($0)) }.joined(separator: "/")
        // `?uploads` and `?location` are sent bare; the signature's canonical query has them as `uploads=`.
        let queryText = query.map { $0.1.isEmpty ? SigV4Signer.encode($0.0) : "\(SigV4Signer.encode($0.0))=\(SigV4Signer.encode($0.1))" }
            .joined(separator: "&")
        let url = origin + encodedPath + (queryText.isEmpty ? "" : "?" + queryText)
        let response: HTTPClient.Response
        do {
            var outgoing = try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: method))
            for (name, value) in signed { outgoing.headers.replaceOrAdd(name: name, value: value) }
            if !body.isEmpty || method == "PUT" || method == "POST" { outgoing.body = .byteBuffer(ByteBuffer(bytes: body)) }
            response = try http.execute(request: outgoing, deadline: .now() + .seconds(timeoutSeconds)).wait()
        } catch {
            throw S3Failure(status: nil, code: nil, message: Self.describe(error))
        }
        let data = response.body.map { Data($0.readableBytesView) } ?? Data()
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let text = String(decoding: data, as: UTF8.self)
            if let error = S3XML.error(text) { throw S3Failure(status: status, code: error.code, message: error.message) }
            // HEAD answers carry no body: name the usual causes.
            switch status {
            case 404: throw S3Failure(status: status, code: key == nil ? "NoSuchBucket" : "NoSuchKey",
                                      message: key == nil ? "bucket \"\(bucket)\" does not exist" : "no such object")
            case 403: throw S3Failure(status: status, code: "AccessDenied", message: "access denied (check the credentials)")
            default: throw S3Failure(status: status, code: nil, message: "")
            }
        }
        return Answer(status: status, etag: response.headers.first(name: "ETag"), body: data,
                      contentLength: response.headers.first(name: "Content-Length").flatMap { Int64($0) })
    }

    private static func describe(_ error: Error) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded { return "no answer from the store in time" }
        return "cannot reach the store: \(error)"
    }
}
