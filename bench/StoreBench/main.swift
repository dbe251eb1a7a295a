// tessera-store-bench: the control plane alone (no media) driven by simulated nodes.
//
//   tessera-store-bench [--store URL] [--nodes 100] [--tasks 1000] [--lease 2] [--poll-ms 250]
//                       [--qps-seconds 5] [--state-dir DIR]
//
// No --store (or an empty one): the embedded SQLite store in --state-dir (a fresh temporary
// directory by default). The database must be empty: the bench creates tasks "bench-task-N" and
// nodes "bench-node-N". Prints a report and one `TABLE|...` line that bench/store-cluster.sh
// collects into its summary table.
import Foundation
import Logging
import TesseraService
import TesseraStore

struct Options {
    var store: String?
    var nodes = 100
    var tasks = 1000
    var lease = 2.0
    var pollMilliseconds = 250
    var qpsSeconds = 5.0
    var stateDirectory: String?
    var steadySeconds = 12.0

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func value() -> String {
                guard let value = iterator.next() else { fail("\(argument) needs a value") }
                return value
            }
            switch argument {
            case "--store": store = value()
            case "--nodes": nodes = Int(value()) ?? nodes
            case "--tasks": tasks = Int(value()) ?? tasks
            case "--lease": lease = Double(value()) ?? lease
            case "--poll-ms": pollMilliseconds = Int(value()) ?? pollMilliseconds
            case "--qps-seconds": qpsSeconds = Double(value()) ?? qpsSeconds
            case "--state-dir": stateDirectory = value()
            case "--steady-seconds": steadySeconds = Double(value()) ?? steadySeconds
            case "-h", "--help":
                print("usage: tessera-store-bench [--store URL] [--nodes N] [--tasks N] [--lease S] [--poll-ms MS] [--qps-seconds S] [--steady-seconds S] [--state-dir DIR]")
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        guard nodes >= 2, tasks >= 1 else { fail("need at least 2 nodes and 1 task") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tessera-store-bench: \(message)\n".utf8))
    exit(2)
}

func nodeId(_ i: Int) -> String { "bench-node-\(i)" }

/// Milliseconds of a duration, for printing.
func ms(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

/// Claims seen during the lost-node phase, shared by the simulated nodes.
actor ClaimLog {
    var claimed: [String: (node: String, at: ContinuousClock.Instant)] = [:]
    var firstOrphanSeen: ContinuousClock.Instant?
    func sawOrphans() { if firstOrphanSeen == nil { firstOrphanSeen = .now } }
    func record(_ taskId: String, by node: String) { claimed[taskId] = (node, .now) }
    func count() -> Int { claimed.count }
}

/// Counts operations of the mixed workload.
actor OpCounter {
    var total = 0
    var latencies: [Double] = []
    func add(_ latency: Double) { total += 1; if latencies.count < 200_000 { latencies.append(latency) } }
}

/// The four measurements, in order; each builds on the state the previous one left.
func runBench(_ options: Options, store: any TaskStore, kind: String) async throws {
    let nodeCount = options.nodes, taskCount = options.tasks
    // Room for every task and then some, so placement never runs out of slots.
    let capacity = max(2, (taskCount * 3 + nodeCount - 1) / nodeCount)
    print("store: \(kind)   nodes: \(nodeCount)   tasks: \(taskCount)   capacity/node: \(capacity)   lease: \(options.lease) s")

    // 1. Heartbeat rounds: every node beats once, all at the same time (as a cluster does).
    func beat(_ i: Int, running: Int, lease: Double) async throws {
        try await store.heartbeat(NodeHeartbeat(nodeId: nodeId(i), advertiseURL: "http://10.0.\(i / 250).\(i % 250):8080",
                                                capacity: capacity, running: running, draining: false, leaseSeconds: lease))
    }
    var roundTimes: [Double] = []
    for _ in 0..<7 {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<nodeCount { group.addTask { try await beat(i, running: 0, lease: 60) } }
            try await group.waitForAll()
        }
        roundTimes.append(ms(ContinuousClock.now - start))
    }
    print("heartbeat round (\(nodeCount) nodes at once): median \(f(percentile(roundTimes, 50))) ms, max \(f(roundTimes.max()!)) ms")

    // 2. Placement, one task after another, as the API does on each POST: read the nodes,
    //    choose, create. `pending` stands for the running counts the next heartbeats would report.
    var readTimes: [Double] = [], chooseTimes: [Double] = [], createTimes: [Double] = [], totalTimes: [Double] = []
    var placed: [String: Int] = [:]
    for t in 0..<taskCount {
        let t0 = ContinuousClock.now
        let nodes = try await store.nodes()
        let t1 = ContinuousClock.now
        guard let node = Placement.choose(among: nodes, pending: placed) else { fail("no node had room for task \(t)") }
        let t2 = ContinuousClock.now
        let outcome = try await store.createTask(NewTask(taskId: "bench-task-\(t)", document: #"{"taskId":"bench-task-\#(t)"}"#,
                                                         node: node.nodeId, status: #"{"state":"starting"}"#))
        let t3 = ContinuousClock.now
        guard outcome == .created else { fail("bench-task-\(t) already existed") }
        placed[node.nodeId, default: 0] += 1
        readTimes.append(ms(t1 - t0)); chooseTimes.append(ms(t2 - t1)); createTimes.append(ms(t3 - t2)); totalTimes.append(ms(t3 - t0))
    }
    print("placement per task (ms)   median   p99")
    for (name, values) in [("read nodes", readTimes), ("Placement.choose", chooseTimes), ("createTask", createTimes), ("total", totalTimes)] {
        print("  \(name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(f(percentile(values, 50), 3))   \(f(percentile(values, 99), 3))")
    }

    // 3. A lost node. Every node beats with the real lease and its real task count; then one node
    //    (the first holding the most tasks) stops. The others keep beating every lease/4 and, every
    //    poll interval (jittered), look for orphans, place them deterministically and claim those
    //    placed on themselves. Measured: from the victim's lease expiry to the last claim.
    let victimIndex = (0..<nodeCount).max { placed[nodeId($0), default: 0] < placed[nodeId($1), default: 0] }!
    let victim = nodeId(victimIndex)
    let victimTasks = try await store.tasks(onNode: victim).map(\.taskId)
    let lease = options.lease
    let victimBeat = ContinuousClock.now
    try await beat(victimIndex, running: victimTasks.count, lease: lease)
    let expiry = victimBeat + .milliseconds(Int(lease * 1000))
    let log = ClaimLog()
    let poll = options.pollMilliseconds
    let finished = ContinuousClock.now + .seconds(Int(lease) + 60)
    let placedBefore = placed
    try await withThrowingTaskGroup(of: Void.self) { group in
        for i in 0..<nodeCount where i != victimIndex {
            let me = nodeId(i)
            group.addTask {
                var held = placedBefore[me, default: 0]
                var nextBeat = ContinuousClock.now
                var nextPoll = ContinuousClock.now + .milliseconds(Int.random(in: 0..<poll))
                while await log.count() < victimTasks.count, ContinuousClock.now < finished {
                    if ContinuousClock.now >= nextBeat {
                        try await beat(i, running: held, lease: lease)
                        nextBeat = ContinuousClock.now + .milliseconds(Int(lease * 250))
                    }
                    if ContinuousClock.now >= nextPoll {
                        nextPoll = ContinuousClock.now + .milliseconds(poll / 2 + Int.random(in: 0..<poll))
                        let orphans = try await store.orphanedTasks()
                        if !orphans.isEmpty {
                            await log.sawOrphans()
                            let nodes = try await store.nodes()
                            var pending: [String: Int] = [:]
                            for orphan in orphans {
                                guard let chosen = Placement.choose(among: nodes, pending: pending) else { break }
                                pending[chosen.nodeId, default: 0] += 1
                                if chosen.nodeId == me,
                                   try await store.claim(taskId: orphan.taskId, node: me, expectedGeneration: orphan.generation) != nil {
                                    held += 1
                                    await log.record(orphan.taskId, by: me)
                                }
                            }
                        }
                    }
                    try await Task.sleep(until: min(nextBeat, nextPoll), clock: .continuous)
                }
            }
        }
        try await group.waitForAll()
    }
    let claims = await log.claimed
    guard claims.count == victimTasks.count else { fail("only \(claims.count) of \(victimTasks.count) tasks were reassigned") }
    let lastClaim = claims.values.map(\.at).max()!
    let firstSeen = await log.firstOrphanSeen!
    let detection = ms(lastClaim - expiry)
    let afterSeen = ms(lastClaim - firstSeen)
    let takers = Set(claims.values.map(\.node)).count
    print("lost node \(victim) with \(victimTasks.count) tasks: all claimed \(f(detection, 0)) ms after its lease expired "
          + "(\(f(ms(firstSeen - expiry), 0)) ms to first sight of an orphan, \(f(afterSeen, 0)) ms from there to the last claim; "
          + "poll every ~\(poll) ms), by \(takers) nodes")

    // 4. Mixed workload: every surviving node at once, for a fixed time, as fast as the store
    //    answers: status saves (fenced), heartbeats, reads of tasks and nodes, orphan scans,
    //    document updates.
    let survivors = (0..<nodeCount).filter { $0 != victimIndex }
    var holdings: [Int: [(String, Int64)]] = [:]
    for task in try await store.allTasks() {
        guard let node = task.node, let index = Int(node.dropFirst("bench-node-".count)) else { continue }
        holdings[index, default: []].append((task.taskId, task.generation))
    }
    let counter = OpCounter()
    let seconds = options.qpsSeconds
    let qpsStart = ContinuousClock.now
    let qpsEnd = qpsStart + .milliseconds(Int(seconds * 1000))
    try await withThrowingTaskGroup(of: Void.self) { group in
        for i in survivors {
            let mine = holdings[i] ?? []
            let me = nodeId(i)
            group.addTask {
                var sequence: Int64 = 0
                while ContinuousClock.now < qpsEnd {
                    let start = ContinuousClock.now
                    let roll = Int.random(in: 0..<100)
                    sequence += 1
                    if let (taskId, generation) = mine.randomElement(), roll < 40 {
                        let report = StatusReport(status: #"{"state":"running","frames":\#(sequence)}"#,
                                                  files: ["file:///out/\(taskId).mp4": ["/out/\(taskId).mp4"]],
                                                  webhookSequence: sequence)
                        guard try await store.saveStatus(taskId: taskId, report, node: me, generation: generation) else {
                            fail("a fenced status save of \(taskId) was refused")
                        }
                    } else if roll < 60 {
                        try await beat(i, running: mine.count, lease: 60)
                    } else if roll < 75 {
                        _ = try await store.task("bench-task-\(Int.random(in: 0..<taskCount))")
                    } else if roll < 85 {
                        _ = try await store.nodes()
                    } else if roll < 90 {
                        _ = try await store.orphanedTasks()
                    } else if let (taskId, generation) = mine.randomElement(), roll < 95 {
                        _ = try await store.updateDocument(taskId: taskId, document: #"{"taskId":"\#(taskId)","v":\#(sequence)}"#,
                                                           sequence: sequence, node: me, generation: generation)
                    } else {
                        _ = try await store.tasks(onNode: me)
                    }
                    await counter.add(ms(ContinuousClock.now - start))
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ms(ContinuousClock.now - qpsStart) / 1000
    let total = await counter.total
    let latencies = await counter.latencies
    let qps = Double(total) / elapsed
    print("mixed workload, \(survivors.count) nodes at once for \(f(elapsed, 1)) s: \(total) queries, \(f(qps, 0)) queries/s, "
          + "latency median \(f(percentile(latencies, 50))) ms, p99 \(f(percentile(latencies, 99))) ms")

    // 5. Steady state: store writes per second for the running tasks' statuses, every node's
    //    1 s round as `ClusterService.writeStatuses` does it: before `StatusWritePolicy` (the
    //    status text carries counters, so every task was written every round), and with it
    //    (written when states or files change — here each task about every 5 minutes — and
    //    otherwise every 10 s; tasks started at spread times).
    func steadyWrites(policy: Bool) async throws -> Double {
        let counter = OpCounter()
        let begin = ContinuousClock.now
        let end = begin + .milliseconds(Int(options.steadySeconds * 1000))
        func elapsed() -> Double { ms(ContinuousClock.now - begin) / 1000 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in survivors {
                let mine = holdings[i] ?? []
                let me = nodeId(i)
                group.addTask {
                    var writes = StatusWritePolicy()
                    var keys: [String: String] = [:]
                    for (taskId, _) in mine {
                        keys[taskId] = "running"
                        writes.wrote(taskId: taskId, key: "running", at: -Double.random(in: 0..<writes.refreshSeconds))
                    }
                    var round = 0
                    while ContinuousClock.now < end {
                        let roundStart = ContinuousClock.now
                        round += 1
                        for (taskId, generation) in mine {
                            if Double.random(in: 0..<1) < 1.0 / 300 { keys[taskId] = "running-\(round)" }
                            let key = keys[taskId] ?? ""
                            if policy && !writes.shouldWrite(taskId: taskId, key: key, at: elapsed()) { continue }
                            let report = StatusReport(status: #"{"state":"running","frames":\#(round)}"#,
                                                      files: ["file:///out/\(taskId).mp4": ["/out/\(taskId).mp4"]], webhookSequence: 1)
                            let start = ContinuousClock.now
                            guard try await store.saveStatus(taskId: taskId, report, node: me, generation: generation) else {
                                fail("a fenced status save of \(taskId) was refused")
                            }
                            await counter.add(ms(ContinuousClock.now - start))
                            writes.wrote(taskId: taskId, key: key, at: elapsed())
                        }
                        try? await Task.sleep(until: roundStart + .seconds(1), clock: .continuous)
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(await counter.total) / elapsed()
    }
    let taskCountRunning = holdings.values.map(\.count).reduce(0, +)
    let everyRound = try await steadyWrites(policy: false)
    let withPolicy = try await steadyWrites(policy: true)
    print("steady state, \(taskCountRunning) running tasks on \(survivors.count) nodes, 1 s rounds for \(f(options.steadySeconds, 0)) s: "
          + "\(f(everyRound, 0)) status writes/s before (every round), \(f(withPolicy, 0)) writes/s with StatusWritePolicy "
          + "(on change, else every 10 s)")

    print("TABLE|\(kind)|\(f(percentile(readTimes, 50), 3))/\(f(percentile(readTimes, 99), 3))"
          + "|\(f(percentile(chooseTimes, 50), 3))/\(f(percentile(chooseTimes, 99), 3))"
          + "|\(f(percentile(createTimes, 50), 3))/\(f(percentile(createTimes, 99), 3))"
          + "|\(f(percentile(totalTimes, 50), 3))/\(f(percentile(totalTimes, 99), 3))"
          + "|\(f(percentile(roundTimes, 50), 1))|\(f(detection, 0)) (\(victimTasks.count) tasks)|\(f(qps, 0))"
          + "|\(f(everyRound, 0)) → \(f(withPolicy, 0))")
}

let options = Options(CommandLine.arguments)
var logger = Logger(label: "tessera-store-bench")
logger.logLevel = .warning

let temporary = options.stateDirectory == nil
let stateDirectory = options.stateDirectory
    ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("tessera-store-bench-\(UUID().uuidString.prefix(8))")
defer { if temporary { try? FileManager.default.removeItem(atPath: stateDirectory) } }

let kind = (options.store ?? "").isEmpty ? "sqlite" : "postgres"
do {
    let store = try makeTaskStore(url: options.store, stateDirectory: stateDirectory, logger: logger)
    // The store's connection pool runs beside the bench, as the service group runs it in a node.
    try await withRunning([store]) {
        try await store.prepare()
        guard try await store.allTasks().isEmpty, try await store.nodes().isEmpty else {
            fail("the store is not empty; give the bench a fresh database")
        }
        try await runBench(options, store: store, kind: kind)
    }
} catch {
    fail("\(error)")
}
