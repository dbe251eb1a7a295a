import Metrics
import TesseraStore

/// What the control loop counts, through swift-metrics (on `/metrics` once the server has
/// bootstrapped its backend): tasks that came to this node and why, tasks it handed over or was
/// fenced from, and the nodes of the cluster as this node last saw them.
enum ClusterMetrics {
    /// `tessera_cluster_tasks_arrived_total{reason="resumed|moved|handed_over"}`.
    static func arrived(_ reason: String) {
        Counter(label: "tessera_cluster_tasks_arrived_total", dimensions: [("reason", reason)]).increment()
    }

    /// `tessera_cluster_tasks_handed_over_total`: tasks this node gave to another when draining.
    static func handedOver() { Counter(label: "tessera_cluster_tasks_handed_over_total").increment() }

    /// `tessera_cluster_tasks_fenced_total`: tasks stopped here because another node holds them.
    static func fenced() { Counter(label: "tessera_cluster_tasks_fenced_total").increment() }

    /// `tessera_cluster_nodes{state="alive|lost|draining"}`.
    static func nodes(_ nodes: [NodeInfo]) {
        let alive = nodes.filter { $0.alive && !$0.draining }.count
        let draining = nodes.filter { $0.alive && $0.draining }.count
        let lost = nodes.filter { !$0.alive }.count
        for (state, count) in [("alive", alive), ("draining", draining), ("lost", lost)] {
            Gauge(label: "tessera_cluster_nodes", dimensions: [("state", state)]).record(count)
        }
    }

    /// `tessera_cluster_stopped_all_total`: times this node stopped every task, cut off from the store and the other nodes.
    static func stoppedAll() { Counter(label: "tessera_cluster_stopped_all_total").increment() }

    /// `tessera_cluster_status_writes_total`: task statuses written to the store (see `StatusWritePolicy`).
    static func statusWritten() { Counter(label: "tessera_cluster_status_writes_total").increment() }

    /// `tessera_cluster_store_errors_total`: heartbeats and queries the task store refused or missed.
    static func storeError() { Counter(label: "tessera_cluster_store_errors_total").increment() }
}
