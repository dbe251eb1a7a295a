import TesseraTask
import TesseraObjectStorage
import TesseraWorkerProtocol

extension OutputStatus {
    /// Takes in an `s3://` output's uploads: the pipeline sees only its spool file, so a store
    /// that refuses the recording is told here (`UploadVerdict`): the output reads `failed` with
    /// the store's reason at once, never `live` or `finished`; an upload being retried names its
    /// cause in `lastError` and reads `reconnecting` while the recording goes on.
    mutating func apply(uploads: [ObjectUploadStatus]?) {
        self.uploads = uploads
        guard let uploads else { return }
        let verdict = UploadVerdict(uploads)
        if let refusal = verdict.refusal {
            state = .failed
            lastError = refusal
        } else if let retrying = verdict.retrying {
            lastError = retrying
            // `live` means the destination takes the bytes: while the store does not, the output
            // reads `reconnecting` (told in the log and `tessera_output_up`), the recording going
            // on into the spool, and `live` again once a request succeeds.
            if state == .live { state = .reconnecting }
        }
    }
}
