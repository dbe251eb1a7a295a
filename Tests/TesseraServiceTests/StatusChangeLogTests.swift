import Foundation
import Logging
import TesseraService
import TesseraWorkerProtocol
import Testing

@Suite struct StatusChangeLogTests {
    static func status(_ state: TaskState, outputs: [(OutputStatus.State, String?)] = [(.connecting, nil)],
                       inputs: [InputStatus.State] = [.waiting], late: Int64 = 0, restarts: Int = 0,
                       reason: String? = nil) -> TaskStatus {
        var status = TaskStatus(taskId: "show", state: state, reason: reason, startedAt: "2026-01-01T00:00:00Z", frames: 10,
                                lateFrames: late,
                                inputs: inputs.enumerated().map { InputStatus(id: "in\($0.offset)", state: $0.element) },
                                outputs: outputs.map { OutputStatus(url: "rtmp://cdn/live/***", state: $0.0, lastError: $0.1) })
        status.workerRestarts = restarts
        return status
    }

    @Test func heartbeatsThatChangeNothingLogNothing() {
        var log = StatusChangeLog()
        #expect(log.lines(for: Self.status(.starting), now: 0).isEmpty)
        let running = Self.status(.running, outputs: [(.live, nil)], inputs: [.live])
        let first = log.lines(for: running, now: 1)
        #expect(first.map(\.message) == ["input live", "output live", "task running"])
        #expect(first.allSatisfy { $0.level == .info })
        #expect(log.lines(for: running, now: 2).isEmpty)
        #expect(log.lines(for: running, now: 3).isEmpty)
    }

    @Test func anOutputThatReconnectsAndGivesUpIsToldOnceEachWithItsError() {
        var log = StatusChangeLog()
        _ = log.lines(for: Self.status(.running, outputs: [(.live, nil), (.live, nil)]), now: 0)
        let error = "cannot write: no bytes accepted for 10 s (stall)"
        let down = Self.status(.running, outputs: [(.live, nil), (.reconnecting, error)])
        let lines = log.lines(for: down, now: 1)
        #expect(lines == [StatusChangeLog.Line(level: .warning, message: "output reconnecting", metadata: [
            "output": "1", "url": "rtmp://cdn/live/***", "state": "reconnecting", "previous_state": "live", "last_error": error])])
        #expect(log.lines(for: down, now: 2).isEmpty)
        let gaveUp = log.lines(for: Self.status(.running, outputs: [(.live, nil), (.failed, error)]), now: 60)
        #expect(gaveUp.map(\.message) == ["output gave up"])
        #expect(gaveUp.first?.level == .warning)
    }

    @Test func theEndIsToldOnceWithItsReasonAndNothingAfter() {
        var log = StatusChangeLog()
        _ = log.lines(for: Self.status(.running, outputs: [(.live, nil)]), now: 0)
        let stopping = log.lines(for: Self.status(.stopping, outputs: [(.live, nil)]), now: 1)
        #expect(stopping.map(\.message) == ["task stopping"])
        let ended = Self.status(.stopped, outputs: [(.finished, nil)], inputs: [.ended], reason: "maxDurationSeconds (60 s) reached")
        let lines = log.lines(for: ended, now: 2)
        #expect(lines.map(\.message) == ["input ended", "output finished", "task stopped"])
        #expect(lines.last?.metadata["reason"] == "maxDurationSeconds (60 s) reached")
        #expect(log.lines(for: ended, now: 3).isEmpty)

        var failing = StatusChangeLog()
        _ = failing.lines(for: Self.status(.running), now: 0)
        let failed = failing.lines(for: Self.status(.failed, reason: "every output gave up: outputs[0]"), now: 1)
        #expect(failed.last?.level == .warning)
        #expect(failed.last?.message == "task failed")
    }

    @Test func aWorkerRestartIsAWarning() {
        var log = StatusChangeLog()
        _ = log.lines(for: Self.status(.running), now: 0)
        let lines = log.lines(for: Self.status(.starting, restarts: 1, reason: "worker process was killed by signal 9; restarted (1 of 3)"),
                              now: 1)
        #expect(lines.map(\.message) == ["worker restarted"])
        #expect(lines.first?.metadata["worker_restarts"] == "1")
        #expect(log.lines(for: Self.status(.starting, restarts: 1), now: 2).isEmpty)
    }

    @Test func aBurstOfLateFramesIsToldWhenItStartsAndWhenItEnds() {
        var log = StatusChangeLog()
        _ = log.lines(for: Self.status(.running), now: 0)
        let start = log.lines(for: Self.status(.running, late: 3), now: 1)
        #expect(start.map(\.message) == ["frames leaving late"])
        #expect(start.first?.level == .warning)
        #expect(log.lines(for: Self.status(.running, late: 9), now: 2).isEmpty)
        #expect(log.lines(for: Self.status(.running, late: 20), now: 5).isEmpty)
        #expect(log.lines(for: Self.status(.running, late: 20), now: 10).isEmpty)
        let end = log.lines(for: Self.status(.running, late: 20), now: 5 + StatusChangeLog.lateQuietSeconds)
        #expect(end.map(\.message) == ["late frames stopped"])
        #expect(end.first?.metadata["late_frames"] == "20")
        #expect(end.first?.metadata["burst_seconds"] == "4.0")
        // A restarted worker counts from zero: its first late frames start a new burst.
        let again = log.lines(for: Self.status(.running, late: 2), now: 40)
        #expect(again.first?.metadata["late_frames_total"] == "22")
    }
}

@Suite struct JSONLogLineTests {
    @Test func oneObjectWithTimeLevelLoggerMessageAndFlatMetadata() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        let line = LogLine.json(time: time, level: .warning, label: "tessera.task", message: "output \"gave\" up\nnow",
                                metadata: ["task_id": "show", "node": "a", "count": .stringConvertible(3),
                                           "http": ["status": "400"], "message": "clash", "list": ["x", "y"]])
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2026-11-18T11:06:40.250Z")
        #expect(object["level"] as? String == "warning")
        #expect(object["logger"] as? String == "tessera.task")
        #expect(object["message"] as? String == "output \"gave\" up\nnow")
        #expect(object["task_id"] as? String == "show")
        #expect(object["count"] as? String == "3")
        #expect(object["http.status"] as? String == "400")
        #expect(object["meta.message"] as? String == "clash")
        #expect(object["list"] as? [String] == ["x", "y"])
    }

    @Test func controlCharactersAreEscaped() throws {
        let line = LogLine.json(time: Date(), level: .info, label: "ffmpeg", message: "a\u{1}b\tc\\", metadata: [:])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "a\u{1}b\tc\\")
    }

    @Test func ffmpegLevelsMapToSwiftLogs() {
        #expect(TesseraLogging.level(ffmpeg: 0) == .critical)
        #expect(TesseraLogging.level(ffmpeg: 16) == .error)
        #expect(TesseraLogging.level(ffmpeg: 24) == .warning)
        #expect(TesseraLogging.level(ffmpeg: 32) == .info)
        #expect(TesseraLogging.level(ffmpeg: 40) == .debug)
        #expect(TesseraLogging.level(ffmpeg: 56) == .trace)
    }

    @Test func aWorkerReadsItsServersFormatAndItsTaskFromTheEnvironment() {
        let environment = TesseraLogging.childEnvironment(["PATH": "/bin"], format: .json, level: "debug", taskId: "show", nodeId: "n1")
        #expect(environment["PATH"] == "/bin")
        let read = TesseraLogging.fromEnvironment(environment)
        #expect(read.format == .json)
        #expect(read.level == .debug)
        #expect(read.metadata["task_id"] == "show")
        #expect(read.metadata["node"] == "n1")
        let bare = TesseraLogging.fromEnvironment([:])
        #expect(bare.format == .text && bare.level == .info && bare.metadata.isEmpty)
    }
}

@Suite struct TaskCostTests {
    @Test func cpuIsSummedOverWorkersAndPerOutputMinute() {
        #expect(TaskCost.cpuSeconds(earlierWorkers: 0, current: nil) == nil)
        #expect(TaskCost.cpuSeconds(earlierWorkers: 12.5, current: 2.25) == 14.75)
        #expect(TaskCost.cpuSeconds(earlierWorkers: 3, current: nil) == 3)
        // 30 s of CPU for 60 s of 25 fps output: 30 core-seconds per output minute.
        #expect(TaskCost.perOutputMinute(cpuSeconds: 30, frames: 1500, fps: 25, uptimeSeconds: 61) == 30)
        // Audio-only: by uptime.
        #expect(TaskCost.perOutputMinute(cpuSeconds: 6, frames: 0, fps: nil, uptimeSeconds: 120) == 3)
        #expect(TaskCost.perOutputMinute(cpuSeconds: 1, frames: 10, fps: 25, uptimeSeconds: 1) == nil)
        #expect(TaskCost.perOutputMinute(cpuSeconds: nil, frames: 1500, fps: 25, uptimeSeconds: 60) == nil)
    }
}

@Suite struct RepeatedLineFilterTests {
    @Test func aRepeatedMessageIsLoggedOnceAMinuteAndAtDebugBetween() {
        var filter = RepeatedLineFilter()
        #expect(filter.level(for: "tcp refused", level: .error, now: 0) == .error)
        #expect(filter.level(for: "tcp refused", level: .error, now: 2) == .debug)
        #expect(filter.level(for: "rtmp cannot open", level: .error, now: 2) == .error)
        #expect(filter.level(for: "tcp refused", level: .error, now: 59) == .debug)
        #expect(filter.level(for: "tcp refused", level: .error, now: RepeatedLineFilter.windowSeconds) == .error)
        // Debug lines are what they are.
        #expect(filter.level(for: "x", level: .debug, now: 0) == .debug)
        #expect(filter.level(for: "x", level: .trace, now: 1) == .trace)
    }
}
