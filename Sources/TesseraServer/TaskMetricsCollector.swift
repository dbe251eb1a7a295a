import Prometheus
import TesseraService
import TesseraWorkerProtocol

/// Derives the task metrics from `TaskService.list()` at scrape time: gauges of tasks, inputs and
/// outputs by state, and counters summed over every task the server has run (`MonotonicTotal`
/// keeps forgotten and restarted ones, so a counter never goes down).
///
/// An actor: two scrapes at once must not both add the same increase.
actor TaskMetricsCollector {
    private let registry: PrometheusCollectorRegistry
    private var totals: [String: MonotonicTotal] = [:]
    /// What each counter has been incremented to so far.
    private var emitted: [String: Int64] = [:]

    /// The counters: metric name, help, and the per-item values it sums.
    private static let counters: [(name: String, help: String, values: @Sendable (TaskCounterSnapshot) -> [String: Int64])] = [
        ("tessera_frames_encoded_total", "Output frames encoded, all tasks.", { $0.framesEncoded }),
        ("tessera_late_frames_total", "Output frames that left after their wall-clock time.", { $0.lateFrames }),
        ("tessera_input_frames_total", "Pictures (audio frames when audio-only) received from inputs.", { $0.inputFrames }),
        ("tessera_input_drops_total", "Pictures or audio lost by inputs: decode errors, drops, stalls.", { $0.inputDrops }),
        ("tessera_output_bytes_total", "Bytes written to outputs.", { $0.outputBytes }),
        ("tessera_output_reconnects_total", "Output reconnections.", { $0.outputReconnects }),
    ]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func collect(_ statuses: [TaskStatus]) {
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
