import Synchronization
import TesseraTask
import TesseraObjectStorage

/// Hands each per-participant file the recorders report to the `s3://` uploads. The uploads are
/// made after the pipeline (they tell its status of changes), so they are attached here once,
/// before the task runs and so before any file is reported.
final class RecordedFileUploads: Sendable {
    private let uploads = Mutex<UploadCoordinator?>(nil)

    /// Also hands the uploads the timeline manifest's twin object (`timeline`: where this run's
    /// manifest is written, nil without one), sent after every file.
    func attach(_ coordinator: UploadCoordinator?, timeline place: TimelinePlace?) {
        uploads.withLock { $0 = coordinator }
        if let coordinator, let place, let location = place.upload {
            coordinator.uploadLast(path: place.path, to: location, outputURL: place.outputURL)
        }
    }

    func recorded(_ file: RecordedFile) {
        uploads.withLock { $0 }?.perInputFile(file)
    }
}
