import Foundation
import TesseraRTP
import TesseraTask
import TesseraWorkerProtocol

/// The RTP ports of the service's tasks: ports handed to `rtp.allocate` inputs from the configured
/// range, and the check that an `rtp.sdp` input's ports are free before its task starts.
///
/// An allocated input is turned into an `rtp.sdp` input (the SDP an SFU should send to, keeping
/// its `rtp.source`) before the worker sees it, so a worker only ever binds ports named by an
/// SDP. The ports stay with the input (matched by task and input id) across updates while it asks
/// for the same description, and return to the range when the input is removed or its task ends.
/// Each medium takes an even RTP port and the RTCP port after it, or, with `rtcpMux`, one port.
/// Ports are probed on the address the worker will bind (`RTPBindAddress`). Used only inside the
/// registry actor; `package`, so the engine's tests drive it without `@testable` (which would
/// compile every module a second time in CI).
package final class RTPAllocations {
    package struct Allocation {
        package var request: RTPAllocationRequest
        package var videoPort: Int?
        package var audioPort: Int?
        package var sdp: String
        package var ports: [Int] {
            [videoPort, audioPort].compactMap { $0 }.flatMap { request.rtcpMux ? [$0] : [$0, $0 + 1] }
        }
        package var status: RTPStatus { RTPStatus(videoPort: videoPort, audioPort: audioPort, sdp: sdp) }
    }

    private let range: ClosedRange<Int>
    private let announceAddress: String
    /// `--rtp-bind-address` as resolved; nil: none.
    private let bindAddress: String?
    private let udpPorts: UDPPortChecker
    /// taskId → inputId → allocation.
    private var byTask: [String: [String: Allocation]] = [:]

    package init(range: ClosedRange<Int>, announceAddress: String, bindAddress: String? = nil, udpPorts: UDPPortChecker) {
        self.range = range
        self.announceAddress = announceAddress
        self.bindAddress = bindAddress
        self.udpPorts = udpPorts
    }

    /// The allocation of an input, for its status.
    func status(taskId: String, inputId: String) -> RTPStatus? {
        byTask[taskId]?[inputId]?.status
    }

    /// Rewrites the `inputs` array of a task document: each `rtp.allocate` input gets ports (the
    /// ones it already has, when the same id asks for the same description: formats, extensions,
    /// RTCP layout and keys) and becomes an `rtp.sdp` input. `rtp.sdp` inputs new to the task are checked for busy ports; one that is an allocated
    /// input as the task already runs it (an update that leaves `inputs` alone) keeps its ports.
    /// Returns the new array and the allocations the task would hold; nothing is recorded until
    /// `commit`.
    package func resolve(inputs: JSONValue, taskId: String, knownSDPs: Set<String>) throws -> (JSONValue, [String: Allocation]) {
        guard case .array(let items) = inputs else { return (inputs, [:]) }
        let current = byTask[taskId] ?? [:]
        // Every port held now, this task's included: an input the update drops frees its ports
        // only after the update is applied.
        var taken = Set(byTask.values.flatMap { $0.values.flatMap(\.ports) })
        var result: [String: Allocation] = [:]
        // SDP inputs first: their ports are not bound yet, so only `taken` keeps an allocation
        // from handing them out again.
        try checkSDPInputs(items, current: current, knownSDPs: knownSDPs, taken: &taken, kept: &result)
        var rewritten: [JSONValue] = []
        for (index, item) in items.enumerated() {
            guard let (id, rtp) = Self.rtpFields(item), case .object(let ask)? = rtp["allocate"],
                  case .object(var fields) = item else {
                rewritten.append(item)
                continue
            }
            let path = "inputs[\(index)].rtp"
            let request = try Self.request(.object(ask), path: path + ".allocate")
            var allocation: Allocation
            if let existing = current[id], existing.request == request {
                allocation = existing
            } else {
                allocation = try allocate(request, taskId: taskId, inputId: id, taken: taken, path: path)
            }
            taken.formUnion(allocation.ports)
            result[id] = allocation
            var sdpInput: [String: JSONValue] = ["sdp": .string(allocation.sdp)]
            if let source = rtp["source"] { sdpInput["source"] = source }
            fields["rtp"] = .object(sdpInput)
            rewritten.append(.object(fields))
        }
        return (.array(rewritten), result)
    }

    /// The SDP texts of a document's `rtp.sdp` inputs.
    static func sdpTexts(in document: JSONValue) -> Set<String> {
        guard case .object(let fields) = document, case .array(let inputs)? = fields["inputs"] else { return [] }
        return Set(inputs.compactMap { input -> String? in
            guard let (_, rtp) = rtpFields(input), case .string(let sdp)? = rtp["sdp"] else { return nil }
            return sdp
        })
    }

    /// Records what a task holds now (after its start or update succeeded); inputs gone from it
    /// give their ports back.
    package func commit(taskId: String, _ allocations: [String: Allocation]) {
        byTask[taskId] = allocations.isEmpty ? nil : allocations
    }

    func release(taskId: String) { byTask[taskId] = nil }

    // MARK: Private

    /// No two SDP inputs may name one port, and a new one may not name a port that is allocated
    /// or bound elsewhere; every named port is then `taken`. An SDP input that is an allocation
    /// of this task, unchanged, is `kept`.
    private func checkSDPInputs(_ items: [JSONValue], current: [String: Allocation], knownSDPs: Set<String>,
                                taken: inout Set<Int>, kept: inout [String: Allocation]) throws {
        var boundBySDP: [Int: Int] = [:]
        for (index, item) in items.enumerated() {
            guard let (id, rtp) = Self.rtpFields(item), case .string(let sdp)? = rtp["sdp"],
                  let session = try? SessionDescription.parse(sdp) else { continue }
            let path = "inputs[\(index)].rtp.sdp"
            let ports = session.boundPorts
            for port in ports {
                if let other = boundBySDP[port] { throw ServiceError.portInUse("UDP port \(port) is named by inputs[\(other)] too", path: path) }
                boundBySDP[port] = index
            }
            if let allocation = current[id], allocation.sdp == sdp {
                kept[id] = allocation
            } else if !knownSDPs.contains(sdp) {
                // Ports of an input that is already running are its own; only new ones are probed.
                if let port = ports.first(where: taken.contains) {
                    throw ServiceError.portInUse("UDP port \(port) is allocated to another RTP input", path: path)
                }
                for media in [session.video, session.audio].compactMap({ $0 }) {
                    if let busy = udpPorts.firstBusy(media.boundPorts, localAddress(for: media.address)) {
                        throw ServiceError.portInUse(busy.reason, path: path)
                    }
                }
            }
            taken.formUnion(ports)
        }
    }

    /// An input's id and `rtp` object, if it is an RTP input.
    private static func rtpFields(_ item: JSONValue) -> (id: String, rtp: [String: JSONValue])? {
        guard case .object(let fields) = item, case .string(let id)? = fields["id"], case .object(let rtp)? = fields["rtp"] else { return nil }
        return (id, rtp)
    }

    /// The address a medium whose SDP names `sessionAddress` binds (nil: every interface).
    private func localAddress(for sessionAddress: String?) -> String? {
        RTPBindAddress.choose(sessionAddress: sessionAddress, setting: bindAddress, isLocal: udpPorts.isLocalAddress)
    }

    /// The allocation request of an input as validated (the document was validated before).
    private static func request(_ value: JSONValue, path: String) throws -> RTPAllocationRequest {
        switch RTPAllocationRequest.read(value, path: path) {
        case .success(let request): return request
        case .failure(let failure):
            let first = failure.issues.first
            throw ServiceError(.invalidTask, message: first?.message ?? "invalid", path: first?.path ?? path)
        }
    }

    /// The first free ports of the range that can really be bound now on the address the worker
    /// will bind: an even RTP port and the odd RTCP port after it per medium, or one port each
    /// with rtcp-mux.
    private func allocate(_ request: RTPAllocationRequest, taskId: String, inputId: String,
                          taken: Set<Int>, path: String) throws -> Allocation {
        let width = request.portsPerMedium
        let address = localAddress(for: announceAddress)
        var ports: [Int] = []
        var candidate = width == 2 ? range.lowerBound + (range.lowerBound % 2) : range.lowerBound
        let needed = (request.video == nil ? 0 : 1) + (request.audio == nil ? 0 : 1)
        while ports.count < needed, candidate + width - 1 <= range.upperBound {
            let group = Array(candidate..<(candidate + width))
            if !group.contains(where: taken.contains), udpPorts.firstBusy(group, address) == nil {
                ports.append(candidate)
            }
            candidate += width
        }
        guard ports.count == needed else {
            throw ServiceError.portInUse("no free RTP ports left in \(range.lowerBound)-\(range.upperBound)", path: path + ".allocate")
        }
        var allocation = Allocation(request: request, videoPort: nil, audioPort: nil, sdp: "")
        var next = ports.makeIterator()
        if request.video != nil { allocation.videoPort = next.next() }
        if request.audio != nil { allocation.audioPort = next.next() }
        allocation.sdp = SessionDescription.make(address: announceAddress, sessionName: "tessera \(taskId) \(inputId)",
                                                 request: request, videoPort: allocation.videoPort, audioPort: allocation.audioPort)
        // The worker receives by this SDP: one the ingest cannot read yet is refused here, before
        // anything is recorded, rather than when the worker starts.
        do {
            _ = try SessionDescription.parse(allocation.sdp)
        } catch {
            throw ServiceError(.invalidTask, message: "cannot be received: \(error)", path: path + ".allocate")
        }
        return allocation
    }
}

extension ServiceError {
    /// 409: the request is fine, but a port it needs is held by someone else.
    static func portInUse(_ message: String, path: String) -> ServiceError {
        ServiceError(.portInUse, message: message, path: path)
    }
}
