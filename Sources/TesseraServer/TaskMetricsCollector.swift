import Foundation
import Prometheus
import TesseraTask
import TesseraService
import TesseraWorkerProtocol

/// Derives the task metrics from `TaskService.list()` at scrape time: gauges of tasks, inputs and
/// outputs by state, and counters summed over every task the server has run (`MonotonicTotal`
/// keeps forgotten and restarted ones, so a counter never goes down); then the per-task series
/// (`TaskSeries`, written as text after the registry's), the output directory's free space and
/// whether the task store answers.
///
/// An actor: two scrapes at once must not both add the same increase.
actor TaskMetricsCollector {
    private let registry: PrometheusCollectorRegistry
    private var totals: [String: MonotonicTotal] = [:]
    /// What each counter has been incremented to so far.
    private var emitted: [String: Int64] = [:]
    private var series = TaskSeries()
    /// This node (its tasks only get per-task series); nil: every task listed.
    private let nodeId: String?
    /// Where recordings go: `tessera_output_dir_free_bytes` is its file system's room.
    private let outputDirectory: String?

    /// The counters: metric name, help, and the per-item values it sums.
    private static let counters: [(name: String, help: String, values: @Sendable (TaskCounterSnapshot) -> [String: Int64])] = [
        ("tessera_frames_encoded_total", "Output frames encoded, all tasks.", { $0.framesEncoded }),
        ("tessera_late_frames_total", "Output frames that left after their wall-clock time.", { $0.lateFrames }),
        ("tessera_input_frames_total", "Pictures (audio frames when audio-only) received from inputs.", { $0.inputFrames }),
        ("tessera_input_drops_total", "Pictures or audio lost by inputs: decode errors, drops, stalls.", { $0.inputDrops }),
        ("tessera_output_reconnects_total", "Output reconnections.", { $0.outputReconnects }),
    ]

    init(registry: PrometheusCollectorRegistry, nodeId: String? = nil, outputDirectory: String? = nil) {
        self.registry = registry
        self.nodeId = nodeId
        self.outputDirectory = outputDirectory
    }

    /// Updates the registry's metrics and returns the per-task series' text, to follow the
    /// registry's exposition. `storeReachable`: what `/readyz` says of the task store.
    func collect(_ statuses: [TaskStatus], storeReachable: Bool) -> String {
        gauge("tessera_store_up", "1 while the task store answers this node, else 0.").set(storeReachable ? 1.0 : 0.0)
        if let outputDirectory, let free = Self.freeBytes(outputDirectory) {
            gauge("tessera_output_dir_free_bytes", "Bytes free for recordings on the output directory's file system.")
                .set(Double(free))
        }
        collectTotals(statuses)
        return TaskSeries.text(series.families(statuses, nodeId: nodeId, now: MonotonicClock.seconds))
    }

    /// Free bytes an unprivileged writer may use on `path`'s file system, or nil if it cannot be read.
    static func freeBytes(_ path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    private func collectTotals(_ statuses: [TaskStatus]) {
        for state in TaskState.allCases {
            gauge("tessera_tasks", "Tasks known to the server, by state.", ("state", state.rawValue))
                .set(Double(statuses.count { $0.state == state }))
        }
        let active = statuses.filter { !$0.state.isFinal }
        for state in InputStatus.State.allCases {
            gauge("tessera_inputs", "Inputs of unfinished tasks, by state.", ("state", state.rawValue))
                .set(Double(active.reduce(0) { $0 + $1.inputs.count { $0.state == state } }))
        }
        for state in OutputStatus.State.allCases {
            gauge("tessera_outputs", "Outputs of unfinished tasks, by state.", ("state", state.rawValue))
                .set(Double(active.reduce(0) { $0 + $1.outputs.count { $0.state == state } }))
        }
        gauge("tessera_output_bitrate_kbps", "Encoded bitrate of running tasks, summed.")
            .set(active.reduce(0) { $0 + $1.bitrateKbps })

        let snapshot = TaskCounterSnapshot(statuses)
        for counter in Self.counters {
            var monotonic = totals[counter.name] ?? MonotonicTotal()
            let total = monotonic.observe(counter.values(snapshot))
            totals[counter.name] = monotonic
            let increase = total - emitted[counter.name, default: 0]
            let prometheusCounter = registry.makeCounter(descriptor: Self.descriptor(counter.name, counter.help))
            if increase > 0 { prometheusCounter.increment(by: increase) }
            emitted[counter.name] = total
        }
    }

    private func gauge(_ name: String, _ help: String, _ label: (String, String)? = nil) -> Gauge {
        let descriptor = Self.descriptor(name, help)
        if let label { return registry.makeGauge(descriptor: descriptor, labels: [label]) }
        return registry.makeGauge(descriptor: descriptor)
    }

    /// The whole name goes in `metricName`; an empty unit adds nothing to it.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
