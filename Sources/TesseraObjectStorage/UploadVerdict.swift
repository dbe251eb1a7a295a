import TesseraTask
/// What an `s3://` output's own status (`state`, `lastError`) must say about its uploads. The
/// pipeline only sees the local spool file, which takes every byte: without this an output whose
/// store refuses it (AccessDenied, a bucket deleted under the task) would read `live`, and then
/// `finished`, while nothing reached the store.
///
/// Only the output's current file counts: the uploads of earlier workers that this one completed
/// (`recovered`) tell of the past, and have their own `reason`.
public struct UploadVerdict: Sendable, Equatable {
    /// The current upload failed: the output reads `failed`, and `lastError` says why, at once.
    public var refusal: String?
    /// The current upload is being retried (the store is slow or away): a `live` output reads
    /// `reconnecting` until a request succeeds (the recording goes on into the spool and catches
    /// up), and `lastError` names the cause.
    public var retrying: String?

    public init(refusal: String? = nil, retrying: String? = nil) {
        self.refusal = refusal; self.retrying = retrying
    }

    public init(_ uploads: [ObjectUploadStatus]) {
        guard let current = uploads.last(where: { $0.recovered != true }) else { return }
        switch current.state {
        case .failed: refusal = "upload to \(current.file) failed: \(current.reason ?? "refused by the store")"
        case .uploading: retrying = current.reason.map { "upload to \(current.file): \($0)" }
        case .uploaded: break
        }
    }
}
