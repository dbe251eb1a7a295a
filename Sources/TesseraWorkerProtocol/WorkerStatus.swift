import Foundation

/// The part of the task status only the worker knows.
public struct WorkerStatus: Codable, Sendable, Equatable {
    public var state: TaskState
    public var reason: String?
    public var frames: Int64
    public var fps: Double
    public var bitrateKbps: Double
    public var lateFrames: Int64
    public var inputs: [InputStatus]
    public var outputs: [OutputStatus]
    public var encodes: [String]? = nil
    /// CPU seconds this worker process has used (user + system) since it started.
    public var cpuSeconds: Double? = nil

    public init(state: TaskState, reason: String?, frames: Int64, fps: Double, bitrateKbps: Double, lateFrames: Int64,
                inputs: [InputStatus], outputs: [OutputStatus], encodes: [String]? = nil) {
        self.state = state; self.reason = reason; self.frames = frames; self.fps = fps; self.bitrateKbps = bitrateKbps
        self.lateFrames = lateFrames; self.inputs = inputs; self.outputs = outputs; self.encodes = encodes
    }
}
