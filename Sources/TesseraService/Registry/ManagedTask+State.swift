import Foundation
import TesseraTask
import TesseraWorkerProtocol

extension ManagedTask {
    /// Everything of a task that changes while it runs, guarded by `ManagedTask.state`.
    struct State {
        /// The document as the worker runs it (allocated RTP inputs turned into SDP inputs).
        var document: JSONValue
        /// The document as accepted, for the task store: allocated inputs still ask for ports, so
        /// another node allocates its own.
        var storedDocument: JSONValue
        /// The plan in force, as validated when the task started or was last updated (an update
        /// is checked against it instead of validating the running document again).
        var plan: ResolvedTask
        var files: OutputFiles
        var worker: (any WorkerHandle)?
        var supervision: TaskSupervision
        var workerStatus: WorkerStatus
        /// The participants and outputs of the document in force.
        var shape: TaskShape
        /// Ports and SDP of each allocated RTP input, by input id.
        var rtp: [String: RTPStatus] = [:]
        /// Kills a worker that stopped reporting (see `HangWatch`).
        var hangWatch: HangWatch
        var lastSequence: Int64?
        /// Why this node runs the task (resumed after a restart, moved from a lost node), shown in
        /// the status reason until something newer happens.
        var arrivalNote: String?
        /// Frames encoded by workers that have since crashed, so `frames` keeps counting up.
        var framesBeforeRestart: Int64 = 0
        /// CPU seconds of workers that have since ended (each reports its own process's from zero).
        var cpuBeforeRestart: Double = 0
        var nextRequestId = 0
        var snapshotWaiters: [Int: @Sendable (Result<Data, ServiceError>) -> Void] = [:]
        var exitWaiters: [@Sendable () -> Void] = []
        /// `waitUntilRTPInputsReady` callers, told when every RTP input is bound or the task ends.
        var rtpReadyWaiters: [@Sendable () -> Void] = []
        /// The first run only: see `History.foreignRecordings`.
        var foreignRecordings: Set<String>
        /// The HLS outputs the origin serves and the latest thumbnails' paths, as the running
        /// worker writes them (`noteOriginRun`).
        var hlsOutputs: [HLSOriginOutput] = []
        var latestThumbnails: [String] = []

        init(document: JSONValue, storedDocument: JSONValue, plan: ResolvedTask, history: History, maxRestarts: Int,
             hangWatch: HangWatch) {
            self.document = document
            self.storedDocument = storedDocument
            self.plan = plan
            files = OutputFiles(history.files)
            supervision = TaskSupervision(maxRestarts: maxRestarts)
            self.hangWatch = hangWatch
            lastSequence = history.sequence
            arrivalNote = history.arrivalNote
            foreignRecordings = history.foreignRecordings
            shape = TaskShape(plan)
            workerStatus = shape.startingStatus
        }

        /// Fits a worker's report to the document in force (see `TaskShape.fit`).
        func fit(_ status: inout WorkerStatus) {
            let files = self.files
            shape.fit(&status, files: { files.files(of: $0) })
        }

        mutating func fitToDocument() {
            var status = workerStatus
            fit(&status)
            workerStatus = status
        }

        func admission(sequence: Int64?) -> UpdateAdmission {
            let ending = supervision.isFinal || supervision.isStopping ? supervision.finalState ?? workerStatus.state : nil
            return UpdateAdmission.decide(sequence: sequence, lastSequence: lastSequence, ending: ending)
        }

        var rtpInputsReadyOrEnded: Bool { supervision.isFinal || shape.rtpInputsReady(workerStatus) }

        /// The RTP waiters to tell now (every input bound, or the task ended).
        mutating func takeRTPReadyWaiters() -> [@Sendable () -> Void] {
            guard !rtpReadyWaiters.isEmpty, rtpInputsReadyOrEnded else { return [] }
            defer { rtpReadyWaiters.removeAll() }
            return rtpReadyWaiters
        }

        /// Once the task is final: every exit and RTP waiter, to tell outside the lock.
        mutating func takeEndWaiters() -> [@Sendable () -> Void] {
            defer { exitWaiters.removeAll() }
            return exitWaiters + takeRTPReadyWaiters()
        }

        /// The task's status from what its worker last reported and what this node knows.
        func status(taskId: String, nodeId: String, startedAt: Date) -> TaskStatus {
            var status = TaskStatus(taskId: taskId, state: supervision.finalState ?? workerStatus.state,
                                    reason: supervision.finalReason ?? workerStatus.reason ?? supervision.restartNote
                                        ?? (supervision.isFinal ? nil : arrivalNote),
                                    startedAt: ISO8601DateFormatter().string(from: startedAt),
                                    uptimeSeconds: (Date().timeIntervalSince(startedAt) * 10).rounded() / 10,
                                    frames: framesBeforeRestart + workerStatus.frames, fps: (workerStatus.fps * 10).rounded() / 10,
                                    bitrateKbps: workerStatus.bitrateKbps.rounded(), lateFrames: workerStatus.lateFrames,
                                    sequence: lastSequence, inputs: workerStatus.inputs, outputs: workerStatus.outputs)
            status.workerPid = worker?.pid
            status.workerRestarts = supervision.restarts
            status.node = nodeId
            status.encodes = workerStatus.encodes
            status.cpuSeconds = TaskCost.cpuSeconds(earlierWorkers: cpuBeforeRestart, current: workerStatus.cpuSeconds)
            status.cpuSecondsPerOutputMinute = TaskCost.perOutputMinute(cpuSeconds: status.cpuSeconds, frames: status.frames,
                                                                        fps: plan.video?.fps, uptimeSeconds: status.uptimeSeconds)
            for index in status.inputs.indices { status.inputs[index].rtp = rtp[status.inputs[index].id] }
            HLSOriginOutput.showPlayback(hlsOutputs, in: &status.outputs, shape: shape, taskId: taskId)
            FinalStates.settle(&status)
            return status
        }
    }
}
