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

    /// After the uploads' `prepare`, before the mix starts (no recorder has opened a file): what
    /// earlier runs of the task left — objects whose names stay theirs, a dead worker's uploads
    /// completed, the files its manifest lists — goes to the recordings' status, and a dead
    /// run's unsent manifest goes up with this run's.
    func noteEarlierRuns(of task: ResolvedTask, in mix: MixPipeline) {
        let coordinator = uploads.withLock { $0 }
        let place = mix.timeline?.place
        let earlier = EarlierRunManifests.read(task, place: place)
        mix.perInputRecordings.noteEarlierRuns(coordinator?.earlierRuns ?? EarlierPerInputFiles(), manifests: earlier.files)
        if let coordinator, let place, let location = place.upload, !earlier.manifests.isEmpty {
            coordinator.uploadEarlierManifests(earlier.manifests, beside: location, outputURL: place.outputURL)
        }
    }

    func recorded(_ file: RecordedFile) {
        uploads.withLock { $0 }?.perInputFile(file)
    }
}
