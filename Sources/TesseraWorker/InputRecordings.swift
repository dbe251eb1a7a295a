import TesseraTask
import TesseraMedia

/// One input's per-participant recorders, one per per-input output, on the input's own thread:
/// kept in step with the task's outputs (`PerInputRecordings`, looked at again only when they
/// changed), each packet handed to every one of them.
final class InputRecordings {
    private let inputID: String
    private let shared: PerInputRecordings
    private var recorders: [(url: String, recorder: ParticipantRecorder)] = []
    private var seenGeneration = -1
    /// What recording cost this input's thread (packets, time spent in `write`), logged per connection.
    private struct Cost {
        var packets: Int64 = 0
        var nanoseconds: UInt64 = 0
        mutating func note(nanoseconds spent: UInt64) { packets += 1; nanoseconds += spent }
    }
    private var cost = Cost()
    /// Whether the open source has video (a file then starts at a keyframe); set per connection.
    var hasVideo = true

    init(inputID: String, shared: PerInputRecordings) {
        self.inputID = inputID
        self.shared = shared
    }

    /// Whether any recorder wants packets now; brings the recorders in step first when the
    /// outputs changed (an atomic read otherwise).
    var wantsPackets: Bool {
        let generation = shared.generation
        if generation != seenGeneration {
            seenGeneration = generation
            synchronize()
        }
        return !recorders.isEmpty
    }

    func write(_ packet: EncodedPacket, ptsMicroseconds: Int64) {
        let started = MonotonicClock.nanoseconds
        defer { cost.note(nanoseconds: MonotonicClock.nanoseconds - started) }
        for entry in recorders {
            let before = entry.recorder.bytes
            entry.recorder.write(packet, ptsMicroseconds: ptsMicroseconds)
            let added = entry.recorder.bytes - before
            if added > 0 { shared.addBytes(added, output: entry.url) }
        }
    }

    /// The connection ended, the input is removed or the task ends: every file finished (trailers
    /// written). The next connection's packets start the next files (the next free names), with
    /// recorders made for what that connection has.
    func finishAll() {
        if cost.packets > 0 {
            shared.noteCost(input: inputID, packets: cost.packets, nanoseconds: cost.nanoseconds,
                            droppedOverlap: recorders.reduce(0) { $0 + $1.recorder.droppedOverlap },
                            clampedVideo: recorders.reduce(0) { $0 + $1.recorder.clampedVideo })
        }
        cost = Cost()
        for entry in recorders { entry.recorder.finish() }
        recorders = []
        seenGeneration = -1
    }

    private func synchronize() {
        let outputs = shared.outputs
        recorders.removeAll { entry in
            guard !outputs.contains(where: { $0.url == entry.url }) else { return false }
            entry.recorder.finish()
            return true
        }
        for output in outputs {
            if let entry = recorders.first(where: { $0.url == output.url }) {
                entry.recorder.setPaused(output.paused)
                continue
            }
            guard case .perInput(let recording) = output.kind else { continue }
            let recorder = makeRecorder(output: output, recording: recording)
            recorder.setPaused(output.paused)
            recorders.append((output.url, recorder))
        }
    }

    private func makeRecorder(output: ResolvedOutput, recording: PerInputRecording) -> ParticipantRecorder {
        let path = recording.path(forInput: inputID)
        // Listed as an absolute path, or for `s3://` outputs as the object the file becomes.
        let url = output.upload == nil ? path : PerInputRecording.fill(output.url, input: inputID)
        let shared = shared, outputURL = output.url, input = inputID
        // A name an earlier run's object holds (a restarted worker) counts as taken, as a file on disk does.
        return ParticipantRecorder(input: inputID, path: path, url: url, formatName: recording.container.muxerName,
                                   hasVideo: hasVideo, exists: { shared.isTaken($0) }) { event in
            switch event {
            case .file(let file): shared.fileReported(file, output: outputURL)
            case .failed(let reason): shared.failed(input: input, output: outputURL, reason: reason)
            }
        }
    }
}
