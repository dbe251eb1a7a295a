/// A Prometheus counter summed over items that come and go: a task is forgotten, an output is
/// removed by an update, a restarted worker counts from zero again. The sum of what is listed now
/// would then go down; this keeps what vanished (or restarted) in `retired`, so the total only
/// ever grows. A pure state machine: `observe` is the only call, and it does no I/O.
struct MonotonicTotal: Sendable, Equatable {
    private var lastSeen: [String: Int64] = [:]
    private var retired: Int64 = 0

    init() {}

    /// Takes the current value of every item (by a key stable for the item's life) and returns
    /// the total so far, never less than the previous one.
    mutating func observe(_ current: [String: Int64]) -> Int64 {
        for (key, last) in lastSeen {
            guard let value = current[key] else {
                retired &+= last          // gone: keep what it counted
                continue
            }
            if value < last { retired &+= last }   // restarted from zero: keep the old run
        }
        lastSeen = current.mapValues { max(0, $0) }
        return lastSeen.values.reduce(retired, &+)
    }
}
