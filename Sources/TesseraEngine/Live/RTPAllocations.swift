import Foundation
import TesseraCore
import TesseraMedia

/// The RTP ports of the service's tasks: ports handed to `rtp.allocate` inputs from the configured
/// range, and the check that an `rtp.sdp` input's ports are free before its task starts.
///
/// An allocated input is turned into an `rtp.sdp` input (the SDP an SFU should send to) before
/// the worker sees it, so a worker only ever binds ports named by an SDP. The ports stay with the
/// input (matched by task and input id) across updates, and return to the range when the input
/// is removed or its task ends. Used only inside the registry actor.
final class RTPAllocations {
    struct Allocation {
        var video: (codec: RTPCodec, port: Int)?
        var audio: (codec: RTPCodec, port: Int)?
        var sdp: String
        var ports: [Int] { [video?.port, audio?.port].compactMap { $0 }.flatMap { [$0, $0 + 1] } }
    }

    private let range: ClosedRange<Int>
    private let announceAddress: String
    /// taskId → inputId → allocation.
    private var byTask: [String: [String: Allocation]] = [:]

    init(range: ClosedRange<Int>, announceAddress: String) {
        self.range = range
        self.announceAddress = announceAddress
    }

    /// The allocation of an input, for its status.
    func status(taskId: String, inputId: String) -> RTPStatus? {
        byTask[taskId]?[inputId].map { RTPStatus(videoPort: $0.video?.port, audioPort: $0.audio?.port, sdp: $0.sdp) }
    }

    /// Rewrites the `inputs` array of a task document: each `rtp.allocate` input gets ports (the
    /// ones it already has, when the same id asks for the same codecs) and becomes an `rtp.sdp`
    /// input. `rtp.sdp` inputs new to the task are checked for busy ports. Returns the new array and
    /// the allocations the task would hold; nothing is recorded until `commit`.
    func resolve(inputs: JSONValue, taskId: String, knownSDPs: Set<String>) throws -> (JSONValue, [String: Allocation]) {
        guard case .array(let items) = inputs else { return (inputs, [:]) }
        let current = byTask[taskId] ?? [:]
        // Every port held now, this task's included: an input the update drops frees its ports
        // only after the update is applied.
        var taken = Set(byTask.values.flatMap { $0.values.flatMap(\.ports) })
        var result: [String: Allocation] = [:]
        var rewritten: [JSONValue] = []
        var boundBySDP: [Int: Int] = [:]
        for (index, item) in items.enumerated() {
            guard case .object(var fields) = item, case .string(let id)? = fields["id"],
                  case .object(let rtp)? = fields["rtp"] else {
                rewritten.append(item)
                continue
            }
            let path = "inputs[\(index)].rtp"
            if case .object(let ask)? = rtp["allocate"] {
                let video = Self.codec(ask["video"]), audio = Self.codec(ask["audio"])
                var allocation: Allocation
                if let existing = current[id], existing.video?.codec == video, existing.audio?.codec == audio {
                    allocation = existing
                } else {
                    allocation = try allocate(video: video, audio: audio, taskId: taskId, inputId: id, taken: taken, path: path)
                }
                taken.formUnion(allocation.ports)
                result[id] = allocation
                fields["rtp"] = .object(["sdp": .string(allocation.sdp)])
                rewritten.append(.object(fields))
            } else {
                if case .string(let sdp)? = rtp["sdp"], let session = try? SessionDescription.parse(sdp) {
                    let ports = [session.video, session.audio].compactMap { $0 }.flatMap { [$0.port] + ($0.rtcpMux ? [] : [$0.rtcpPort]) }
                    for port in ports {
                        if let other = boundBySDP[port] {
                            throw ServiceError.portInUse("UDP port \(port) is named by inputs[\(other)] too", path: path + ".sdp")
                        }
                        boundBySDP[port] = index
                    }
                    // Ports of an input that is already running are its own; only new ones are probed.
                    if !knownSDPs.contains(sdp) {
                        if let port = ports.first(where: taken.contains) {
                            throw ServiceError.portInUse("UDP port \(port) is allocated to another RTP input", path: path + ".sdp")
                        }
                        if let busy = UDPPortProbe.firstBusy(ports) {
                            throw ServiceError.portInUse(busy.reason, path: path + ".sdp")
                        }
                    }
                }
                rewritten.append(item)
            }
        }
        return (.array(rewritten), result)
    }

    /// Records what a task holds now (after its start or update succeeded); inputs gone from it
    /// give their ports back.
    func commit(taskId: String, _ allocations: [String: Allocation]) {
        byTask[taskId] = allocations.isEmpty ? nil : allocations
    }

    func release(taskId: String) { byTask[taskId] = nil }

    // MARK: Private

    private static func codec(_ value: JSONValue?) -> RTPCodec? {
        guard case .string(let name)? = value else { return nil }
        switch name.lowercased() {
        case "h264": return .h264
        case "vp8": return .vp8
        case "vp9": return .vp9
        case "opus": return .opus
        case "aac": return .aac
        case "pcmu": return .pcmu
        case "pcma": return .pcma
        default: return nil
        }
    }

    /// Even RTP ports (RTCP on the odd one after), the first free pairs of the range that can
    /// really be bound now.
    private func allocate(video: RTPCodec?, audio: RTPCodec?, taskId: String, inputId: String,
                          taken: Set<Int>, path: String) throws -> Allocation {
        var ports: [Int] = []
        var candidate = range.lowerBound + (range.lowerBound % 2)
        let needed = (video == nil ? 0 : 1) + (audio == nil ? 0 : 1)
        while ports.count < needed, candidate + 1 <= range.upperBound {
            let pair = [candidate, candidate + 1]
            if !pair.contains(where: taken.contains), UDPPortProbe.firstBusy(pair) == nil { ports.append(candidate) }
            candidate += 2
        }
        guard ports.count == needed else {
            throw ServiceError.portInUse("no free RTP ports left in \(range.lowerBound)-\(range.upperBound)", path: path + ".allocate")
        }
        var allocation = Allocation(video: nil, audio: nil, sdp: "")
        var next = ports.makeIterator()
        if let video { allocation.video = (video, next.next()!) }
        if let audio { allocation.audio = (audio, next.next()!) }
        allocation.sdp = SessionDescription.make(address: announceAddress, sessionName: "tessera \(taskId) \(inputId)",
                                                 video: allocation.video, audio: allocation.audio)
        return allocation
    }
}

extension ServiceError {
    /// 409: the request is fine, but a port it needs is held by someone else.
    static func portInUse(_ message: String, path: String) -> ServiceError {
        ServiceError(code: "PortInUse", httpStatus: 409, message: message, path: path)
    }
}
