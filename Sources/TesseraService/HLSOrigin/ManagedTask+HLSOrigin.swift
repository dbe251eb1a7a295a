import Foundation
import TesseraTask
import TesseraWorkerProtocol

extension ManagedTask {
    /// What the origin serves of this task: its HLS outputs as the running worker writes them.
    var hlsOrigin: HLSOriginTask {
        let (outputs, thumbnails) = state.withLock { state in (state.hlsOutputs, state.latestThumbnails) }
        return HLSOriginTask(taskId: id, outputs: outputs, latestThumbnails: thumbnails, board: hlsProgress)
    }
}

extension ManagedTask.State {
    /// A worker starts on `runPlan`, or gets it as an update: its files are what the origin serves.
    mutating func noteOriginRun(_ runPlan: ResolvedTask, document: JSONValue) {
        hlsOutputs = HLSOriginOutput.list(runPlan: runPlan, document: document)
        latestThumbnails = HLSOriginTask.latestThumbnails(runPlan: runPlan)
    }
}

extension HLSOriginOutput {
    /// Puts each served HLS output's `playbackPath` into its status entry (entries are in the
    /// order of the document's outputs, `shape`).
    static func showPlayback(_ served: [HLSOriginOutput], in outputs: inout [OutputStatus], shape: TaskShape, taskId: String) {
        guard !served.isEmpty else { return }
        for (index, output) in shape.outputs.enumerated() where outputs.indices.contains(index) {
            outputs[index].playbackPath = served.first { $0.url == output.url }?.playbackPath(taskId: taskId)
        }
    }
}
