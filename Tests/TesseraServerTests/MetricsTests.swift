import Hummingbird
import HummingbirdTesting
import TesseraServer
import TesseraService
import TesseraWorkerProtocol
import Testing

@Suite struct MetricsTests {
    /// The value of the sample line `name` (with its labels as written), if present.
    static func sample(_ text: String, _ name: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    static func status(_ id: String, _ state: TaskState, frames: Int64, bytes: Int64 = 0, drops: Int64 = 0) -> TaskStatus {
        TaskStatus(taskId: id, state: state, startedAt: "2026-01-01T00:00:00Z", frames: frames, lateFrames: 1,
                   inputs: [InputStatus(id: "a", state: .live, frames: frames, drops: drops)],
                   outputs: [OutputStatus(url: "rtmp://cdn/live/***", state: .live, bytes: bytes, reconnects: 1),
                             OutputStatus(url: "rtmp://cdn/live/***", state: .reconnecting, bytes: bytes, reconnects: 2)])
    }

    @Test func metricsAreTesseraPrometheusText() async throws {
        let server = TestServer()
        try await server.test { client in
            _ = try await client.execute(uri: "/v1/tasks", method: .post, body: buffer(taskBody))
            _ = try await client.execute(uri: "/v1/tasks/nope", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = response.text
            #expect(Self.sample(text, #"tessera_tasks{state="running"}"#) == 1)
            #expect(Self.sample(text, #"tessera_tasks{state="failed"}"#) == 0)
            #expect(Self.sample(text, #"tessera_outputs{state="live"}"#) == 1)
            for name in ["tessera_frames_encoded_total", "tessera_late_frames_total", "tessera_output_bytes_total",
                         "tessera_task_cpu_seconds_total", "tessera_task_late_frames_total", "tessera_worker_restarts_total",
                         "tessera_input_packets_lost_total",
                         "tessera_output_reconnects_total", "tessera_input_drops_total", "tessera_input_frames_total"] {
                #expect(text.contains("# TYPE \(name) counter"), "\(name)")
            }
            #expect(text.contains(#"tessera_http_requests_total{method="POST",route="/v1/tasks",status="201"} 1"#))
            #expect(text.contains(#"route="/v1/tasks/{taskId}",status="404""#))
            // Every metric name is Tessera's own.
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                #expect(line.hasPrefix("tessera_"), "\(line)")
            }
        }
    }

    @Test func countersNeverGoDownWhenTasksAreForgottenOrRestart() async throws {
        let server = TestServer()
        try await server.test { client in
            func scrape() async throws -> String { try await client.execute(uri: "/metrics", method: .get).text }

            await server.service.set(listed: [Self.status("a", .running, frames: 100, bytes: 1000, drops: 3),
                                              Self.status("b", .running, frames: 50)])
            var text = try await scrape()
            #expect(Self.sample(text, "tessera_frames_encoded_total") == 150)
            // Per task and output (by index: two outputs with the same redacted URL stay apart).
            #expect(Self.sample(text, #"tessera_output_bytes_total{task_id="a",output="0"}"#) == 1000)
            #expect(Self.sample(text, #"tessera_output_bytes_total{task_id="a",output="1"}"#) == 1000)
            #expect(Self.sample(text, "tessera_output_reconnects_total") == 6)
            #expect(Self.sample(text, "tessera_input_drops_total") == 3)
            #expect(Self.sample(text, #"tessera_tasks{state="running"}"#) == 2)

            // "a" is forgotten, "b" restarts from zero: nothing counted is lost.
            await server.service.set(listed: [Self.status("b", .running, frames: 10)])
            text = try await scrape()
            #expect(Self.sample(text, "tessera_frames_encoded_total") == 160)
            // "a" is no longer listed: its series are gone; "b"'s restarted worker counts on.
            #expect(!text.contains(#"task_id="a""#))
            #expect(Self.sample(text, #"tessera_output_bytes_total{task_id="b",output="0"}"#) == 0)
            #expect(Self.sample(text, #"tessera_tasks{state="running"}"#) == 1)

            await server.service.set(listed: [Self.status("b", .stopped, frames: 15)])
            text = try await scrape()
            #expect(Self.sample(text, "tessera_frames_encoded_total") == 165)
            #expect(Self.sample(text, #"tessera_tasks{state="stopped"}"#) == 1)
            #expect(Self.sample(text, #"tessera_outputs{state="live"}"#) == 0)
            #expect(Self.sample(text, #"tessera_task_running{task_id="b"}"#) == 0)
            #expect(Self.sample(text, "tessera_store_up") == 1)
        }
    }
}
