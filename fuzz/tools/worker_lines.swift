// Writes the worker_protocol seeds: lines as `tessera serve` and a worker write them (the
// commands of WorkerCommandTests, a status, a snapshot and an exit event, a task status). Built
// against the fuzz build's libraries once scripts/fuzz.sh has run:
//
//   B=.build-fuzz/lib; swiftc -O -parse-as-library -package-name Tessera -sanitize=address -I $B \
//     fuzz/tools/worker_lines.swift -o /tmp/worker_lines -Xlinker --start-group \
//     -Xlinker $B/libTesseraWorkerProtocol.a -Xlinker $B/libTesseraTask.a -Xlinker $B/libTesseraRTP.a \
//     -Xlinker $B/libTesseraComposition.a -Xlinker --end-group \
//     -Xlinker "$(ls /opt/swift/usr/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a)" -lstdc++
//   /tmp/worker_lines fuzz/corpus/worker_protocol
import Foundation
import TesseraComposition
import TesseraRTP
import TesseraTask
import TesseraWorkerProtocol

@main struct WorkerLines {
    static func main() throws {
        let document = """
            {"taskId": "t1", "inputs": [{"id": "a", "url": "rtmp://origin.local/live/a"}],
             "encoder": {"video": {"width": 640, "height": 360}},
             "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 640, "height": 360}]},
             "outputs": [{"url": "rtmp://sink.local/live/mix"}]}
            """
        let options = ValidationOptions(mediaRoot: "/media", outputDirectory: "/out", defaultPace: .realtime, offline: false,
                                        confinePaths: true, fileExists: { _ in false })
        let plan = try TaskValidator.validate(json: Data(document.utf8), options: options).get()
        let injection = SEIInjection(message: .unregistered(uuid: SEIInjection.defaultUUID, data: Array("hi".utf8)), repeatCount: 3)
        let commands: [WorkerCommand] = [
            .start(WorkerStart(plan: plan, outputGiveUpSeconds: 60, leaseSeconds: 5, rtpBindAddress: "127.0.0.1")),
            .update(plan), .stop, .snapshot(requestId: 7), .lease(seconds: 2.5), .sei(injection),
        ]
        var input = InputStatus(id: "a", state: .live, frames: 120, drops: 1, rtp: RTPStatus(videoPort: 5004, audioPort: nil, sdp: "v=0"),
                                packets: PacketCounters(), rotation: 90, flip: false, drawSize: PixelSize(width: 640, height: 360))
        input.audioLevel = 40
        var output = OutputStatus(url: "rtp://sfu.example:7000", state: .live, bytes: 4096)
        output.rtp = RTPOutputStatus(destination: "sfu.example:7000", video: RTPSentStreamStatus(ssrc: 7, packets: 10, pli: 1),
                                     audio: RTPSentStreamStatus(ssrc: 8))
        output.uploads = [ObjectUploadStatus(file: "s3://bucket/room.mp4", state: .uploading, bytes: 10)]
        let status = WorkerStatus(state: .running, reason: nil, frames: 120, fps: 30, bitrateKbps: 900, lateFrames: 0,
                                  inputs: [input], outputs: [output], encodes: ["h264-high", "aac"])
        let events = [WorkerEvent(type: .status, status: status), WorkerEvent(type: .snapshot, requestId: 7, png: "iVBORw0KGgo="),
                      WorkerEvent(type: .exit, status: status, leaseExpired: true)]
        let task = TaskStatus(taskId: "t1", state: .running, startedAt: "2026-11-28T04:00:00Z", frames: 120, inputs: [input],
                              outputs: [output])
        let encoder = JSONEncoder()
        var lines = try commands.map { try encoder.encode($0) } + events.map { try encoder.encode($0) }
        lines.append(try encoder.encode(task))
        let directory = CommandLine.arguments.dropFirst().first ?? "."
        for (index, line) in lines.enumerated() {
            try (line + [0x0A]).write(to: URL(fileURLWithPath: "\(directory)/line-\(index)"))
        }
    }
}
