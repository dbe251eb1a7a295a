/// What a task costs, for its status (`cpuSeconds`, `cpuSecondsPerOutputMinute`) and
/// `tessera_task_cpu_seconds_total`: the CPU its worker processes used (each reports its own
/// process's CPU time, `WorkerStatus.cpuSeconds`; a restarted worker counts from zero, so the
/// earlier workers' last reports are added), per minute of output produced.
public enum TaskCost {
    /// CPU seconds over the task's workers: `earlierWorkers` (the sum of each ended worker's last
    /// report) plus the current worker's report; nil before any worker reported.
    public static func cpuSeconds(earlierWorkers: Double, current: Double?) -> Double? {
        guard let current else { return earlierWorkers > 0 ? round(earlierWorkers) : nil }
        return round(earlierWorkers + current)
    }

    /// Core-seconds per minute of output: the output's length is its frames over the frame rate
    /// (audio-only: the task's uptime). Nil until a second of output exists (a ratio over less
    /// says nothing). 60 means one core busy the whole time.
    public static func perOutputMinute(cpuSeconds: Double?, frames: Int64, fps: Int?, uptimeSeconds: Double) -> Double? {
        guard let cpuSeconds else { return nil }
        let outputSeconds = fps.map { $0 > 0 ? Double(frames) / Double($0) : 0 } ?? uptimeSeconds
        guard outputSeconds >= 1 else { return nil }
        return round(cpuSeconds / (outputSeconds / 60))
    }

    /// Three decimals: a status is read by people.
    private static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
