import TesseraRTP
import TesseraTask
import TesseraObjectStorage
import TesseraServer
import TesseraWorkerProtocol
import Testing

@Suite struct TaskSeriesTests {
    static func status(_ id: String, _ state: TaskState = .running, node: String? = "n1", cpu: Double = 2.5, late: Int64 = 4,
                       restarts: Int = 0, bytes: Int64 = 1000, lost: Int64 = 7) -> TaskStatus {
        var rtpInput = InputStatus(id: "guest", state: .live)
        rtpInput.packets = PacketCounters()
        rtpInput.packets?.lost = lost
        var output = OutputStatus(url: "s3://bucket/rec.mp4", state: .live, bytes: bytes)
        output.uploads = [ObjectUploadStatus(file: "s3://bucket/rec.mp4", bytes: 10, waitingBytes: 300)]
        var status = TaskStatus(taskId: id, state: state, startedAt: "2026-01-01T00:00:00Z", frames: 100, lateFrames: late,
                                inputs: [rtpInput, InputStatus(id: "file", state: .waiting)],
                                outputs: [output, OutputStatus(url: "rtmp://cdn/live/***", state: .reconnecting, bytes: 5)])
        status.node = node
        status.cpuSeconds = cpu
        status.workerRestarts = restarts
        return status
    }

    /// name{labels} → value, from the text.
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            out[String(parts[0])] = Double(parts[1])
        }
        return out
    }

    @Test func eachSeriesNamesItsTaskAndItsOutputOrInput() {
        var series = TaskSeries()
        let text = TaskSeries.text(series.families([Self.status("a"), Self.status("b", cpu: 1)], nodeId: "n1", now: 0))
        let values = Self.samples(text)
        #expect(values[#"tessera_task_cpu_seconds_total{task_id="a"}"#] == 2.5)
        #expect(values[#"tessera_task_cpu_seconds_total{task_id="b"}"#] == 1)
        #expect(values[#"tessera_task_late_frames_total{task_id="a"}"#] == 4)
        #expect(values[#"tessera_worker_restarts_total{task_id="a"}"#] == 0)
        #expect(values[#"tessera_output_up{task_id="a",output="0"}"#] == 1)
        #expect(values[#"tessera_output_up{task_id="a",output="1"}"#] == 0)
        #expect(values[#"tessera_output_info{task_id="a",output="1",url="rtmp://cdn/live/***"}"#] == 1)
        #expect(values[#"tessera_output_bytes_total{task_id="a",output="0"}"#] == 1000)
        #expect(values[#"tessera_input_packets_lost_total{task_id="a",input="guest"}"#] == 7)
        #expect(values[#"tessera_input_packets_lost_total{task_id="a",input="file"}"#] == nil)   // not RTP: not measured
        #expect(values[#"tessera_input_up{task_id="a",input="file"}"#] == 0)
        #expect(values[#"tessera_upload_backlog_bytes{task_id="a"}"#] == 300)
        #expect(text.contains("# TYPE tessera_task_cpu_seconds_total counter"))
        #expect(text.contains("# TYPE tessera_output_up gauge"))
    }

    @Test func anotherNodesTasksAreNotExported() {
        var series = TaskSeries()
        let text = TaskSeries.text(series.families([Self.status("a"), Self.status("b", node: "n2")], nodeId: "n1", now: 0))
        #expect(text.contains(#"task_id="a""#))
        #expect(!text.contains(#"task_id="b""#))
    }

    @Test func countersKeepWhatARestartedWorkerCounted() {
        var series = TaskSeries()
        _ = series.families([Self.status("a", cpu: 10, late: 5, bytes: 1000)], nodeId: nil, now: 0)
        let text = TaskSeries.text(series.families([Self.status("a", cpu: 1, late: 1, restarts: 1, bytes: 50)], nodeId: nil, now: 1))
        let values = Self.samples(text)
        #expect(values[#"tessera_task_cpu_seconds_total{task_id="a"}"#] == 11)
        #expect(values[#"tessera_task_late_frames_total{task_id="a"}"#] == 6)
        #expect(values[#"tessera_output_bytes_total{task_id="a",output="0"}"#] == 1050)
        #expect(values[#"tessera_worker_restarts_total{task_id="a"}"#] == 1)
    }

    @Test func anEndedTasksSeriesGoAfterTheirFinalValuesWereScrapedAndAGrace() {
        var series = TaskSeries()
        _ = series.families([Self.status("a")], nodeId: nil, now: 0)
        let ended = [Self.status("a", .stopped, cpu: 3)]
        var text = TaskSeries.text(series.families(ended, nodeId: nil, now: 100))
        #expect(Self.samples(text)[#"tessera_task_cpu_seconds_total{task_id="a"}"#] == 3)
        #expect(Self.samples(text)[#"tessera_task_running{task_id="a"}"#] == 0)
        text = TaskSeries.text(series.families(ended, nodeId: nil, now: 100 + TaskSeries.endedGraceSeconds / 2))
        #expect(text.contains(#"task_id="a""#))
        text = TaskSeries.text(series.families(ended, nodeId: nil, now: 100 + TaskSeries.endedGraceSeconds))
        #expect(!text.contains(#"task_id="a""#))
        // A task already over when first seen (a restart of the server) is not exported at all.
        var fresh = TaskSeries()
        #expect(!TaskSeries.text(fresh.families(ended, nodeId: nil, now: 0)).contains(#"task_id="a""#))
        // Its id used again by a new task: exported again, and again until a grace after it ends.
        #expect(TaskSeries.text(fresh.families([Self.status("a")], nodeId: nil, now: 1)).contains(#"task_id="a""#))
        #expect(TaskSeries.text(series.families([Self.status("a")], nodeId: nil, now: 200)).contains(#"task_id="a""#))
        #expect(TaskSeries.text(series.families(ended, nodeId: nil, now: 201)).contains(#"task_id="a""#))
    }

    @Test func labelValuesAreEscaped() {
        #expect(TaskSeries.escape("a\"b\\c\nd") == #"a\"b\\c\nd"#)
        #expect(TaskSeries.number(3) == "3")
        #expect(TaskSeries.number(2.5) == "2.5")
    }
}
