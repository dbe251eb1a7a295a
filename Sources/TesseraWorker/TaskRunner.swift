import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// What the worker drives: a mixing pipeline or a relay.
protocol TaskRunner: AnyObject, Sendable {
    func runTask() throws
    func requestStop()
    /// Ends the task `failed` with `reason` (outputs failed where the pipeline cannot see it).
    func giveUp(reason: String)
    func update(_ task: ResolvedTask)
    func injectSEI(_ injection: SEIInjection)
    func snapshot(timeoutSeconds: Double) -> YUVImage?
    /// `running` or `starting`; `reason` says why the task ended by itself, if it did.
    var status: WorkerStatus { get }
    /// Raised when the status has something new to say (a state changed).
    var statusChanged: ChangeSignal { get }
}

extension TaskRunner {
    func snapshot() -> YUVImage? { snapshot(timeoutSeconds: 2) }
}

extension MixPipeline: TaskRunner {
    func runTask() throws { try run() }
}

extension RelayPipeline: TaskRunner {
    func runTask() throws { try run() }
    /// A relay has no layout or mix to change; its outputs are fixed for its life.
    func update(_ task: ResolvedTask) {}
    /// A relay passes its input's video through untouched (the registry refuses injections).
    func injectSEI(_ injection: SEIInjection) {}
    func snapshot(timeoutSeconds: Double) -> YUVImage? { nil }
}
