import TesseraTask
import TesseraServer
import TesseraWorkerProtocol
import Testing

/// A per-participant recording that fails is a series naming its task, output and input.
@Suite struct RecordingFailureSeriesTests {
    static func status(_ outputs: [OutputStatus]) -> TaskStatus {
        TaskStatus(taskId: "show", state: .running, startedAt: "2026-01-01T00:00:00Z", frames: 10, lateFrames: 0,
                   inputs: [InputStatus(id: "host", state: .live), InputStatus(id: "guest", state: .live)], outputs: outputs)
    }

    static func upload(_ file: String, _ state: ObjectUploadStatus.State, input: String) -> ObjectUploadStatus {
        var upload = ObjectUploadStatus(file: file, state: state)
        upload.input = input
        return upload
    }

    @Test func aFailedRecorderOrUploadIsOneSeriesPerInput() {
        var composite = OutputStatus(url: "rec/show.mp4", state: .live)
        composite.uploads = [ObjectUploadStatus(file: "s3://b/show.mp4", state: .failed, reason: "refused")]
        var perInput = OutputStatus(url: "s3://b/room42/{input}.webm", state: .failed, lastError: "input guest: h264 in webm")
        perInput.failedInputs = ["guest"]
        perInput.uploads = [
            Self.upload("s3://b/room42/host.webm", .failed, input: "host"),
            Self.upload("s3://b/room42/guest.webm", .uploaded, input: "guest"),
            Self.upload("s3://b/room42/host.1.webm", .uploading, input: "host"),
        ]
        #expect(TaskSeries.failedRecordings(perInput) == ["guest", "host"])
        // A composite's failed upload names no input: it is told by tessera_output_up, not here.
        #expect(TaskSeries.failedRecordings(composite) == [])

        var series = TaskSeries()
        let text = TaskSeries.text(series.families([Self.status([composite, perInput])], nodeId: nil, now: 0))
        #expect(text.contains("# TYPE tessera_recording_failed gauge"))
        #expect(text.contains(#"tessera_recording_failed{task_id="show",output="1",input="guest"} 1"#))
        #expect(text.contains(#"tessera_recording_failed{task_id="show",output="1",input="host"} 1"#))
        #expect(!text.contains(#"tessera_recording_failed{task_id="show",output="0""#))
    }

    @Test func nothingFailedNoSeries() {
        var perInput = OutputStatus(url: "rec/{input}.mkv", state: .live)
        perInput.files = ["/rec/host.mkv"]
        var series = TaskSeries()
        let text = TaskSeries.text(series.families([Self.status([perInput])], nodeId: nil, now: 0))
        #expect(!text.contains("tessera_recording_failed{"))
    }
}
