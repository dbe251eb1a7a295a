import Foundation
import TesseraTask
import TesseraMedia
import TesseraService
import Testing

/// The service's RTP port allocator: what it writes, what it keeps across updates, and where it
/// probes. Real sockets on 127.0.0.1, in a range of its own per test.
@Suite struct RTPAllocationsTests {
    static func inputs(_ json: String) throws -> JSONValue { try JSONValue.parse(Data(json.utf8)) }

    static func rtp(of inputs: JSONValue, at index: Int = 0) -> [String: JSONValue]? {
        guard case .array(let items) = inputs, case .object(let fields) = items[index],
              case .object(let rtp)? = fields["rtp"] else { return nil }
        return rtp
    }

    @Test func anAllocationBecomesItsSDPAndKeepsItsSource() throws {
        let allocations = RTPAllocations(range: 47100...47119, announceAddress: "127.0.0.1", bindAddress: "127.0.0.1", udpPorts: .host)
        let asked = try Self.inputs(#"""
            [{"id": "a", "rtp": {"allocate": {"video": {"codec": "H264", "payloadType": 99, "rtxPayloadType": 100},
                                              "audio": "opus"}, "source": "127.0.0.1"}}]
            """#)
        let (inputs, held) = try allocations.resolve(inputs: asked, taskId: "t", knownSDPs: [])
        let allocation = try #require(held["a"])
        #expect(allocation.videoPort == 47100 && allocation.audioPort == 47102)
        #expect(allocation.ports == [47100, 47101, 47102, 47103])
        #expect(Self.rtp(of: inputs) == ["sdp": .string(allocation.sdp), "source": .string("127.0.0.1")])
        #expect(allocation.sdp.contains("m=video 47100 RTP/AVPF 99 100\r\n"))
        #expect(allocation.sdp.contains("m=audio 47102 RTP/AVP 111\r\n"))
    }

    /// Ports stay while the description is the same (whichever form says it), and change with it.
    @Test func keepsPortsForTheSameDescriptionOnly() throws {
        let allocations = RTPAllocations(range: 47120...47139, announceAddress: "127.0.0.1", udpPorts: .host)
        let (_, first) = try allocations.resolve(inputs: Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": "VP8"}}}]"#),
                                                 taskId: "t", knownSDPs: [])
        allocations.commit(taskId: "t", first)
        let same = try Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": {"codec": "vp8", "payloadType": 97}}}}]"#)
        let (_, kept) = try allocations.resolve(inputs: same, taskId: "t", knownSDPs: [])
        #expect(kept["a"]?.videoPort == first["a"]?.videoPort && kept["a"]?.sdp == first["a"]?.sdp)
        let other = try Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": {"codec": "VP8", "payloadType": 101}}}}]"#)
        let (_, moved) = try allocations.resolve(inputs: other, taskId: "t", knownSDPs: [])
        #expect(moved["a"]?.videoPort != first["a"]?.videoPort)
        #expect(moved["a"]?.sdp.contains("a=rtpmap:101 VP8/90000") == true)
    }

    @Test func rtcpMuxTakesOnePortPerMedium() throws {
        let allocations = RTPAllocations(range: 47140...47141, announceAddress: "127.0.0.1", udpPorts: .host)
        let muxed = try Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": "H264", "audio": "opus", "rtcpMux": true}}}]"#)
        let (_, held) = try allocations.resolve(inputs: muxed, taskId: "t", knownSDPs: [])
        #expect(held["a"]?.ports == [47140, 47141])
        #expect(held["a"]?.sdp.components(separatedBy: "a=rtcp-mux\r\n").count == 3)
        let pairs = try Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": "H264", "audio": "opus"}}}]"#)
        #expect(throws: ServiceError.self) { try allocations.resolve(inputs: pairs, taskId: "u", knownSDPs: []) }
    }

    /// A port held on the address the worker will bind is skipped.
    @Test func probesTheAddressTheWorkerBinds() throws {
        let holder = try UDPSocket(port: 47160, bindAddress: "127.0.0.1")
        let allocations = RTPAllocations(range: 47160...47163, announceAddress: "127.0.0.1", udpPorts: .host)
        let (_, held) = try withExtendedLifetime(holder) {
            try allocations.resolve(inputs: Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"audio": "pcmu"}}}]"#),
                                    taskId: "t", knownSDPs: [])
        }
        #expect(held["a"]?.audioPort == 47162)
    }

    /// What the ingest cannot read yet (SRTP until the SDP parser takes a=crypto) is a 400 at the
    /// allocation, before anything is recorded.
    @Test func anSDPTheIngestCannotReadIsRefused() throws {
        let key = Data(repeating: 3, count: 30).base64EncodedString()
        let allocations = RTPAllocations(range: 47180...47189, announceAddress: "127.0.0.1", udpPorts: .host)
        let asked = try Self.inputs(#"[{"id": "a", "rtp": {"allocate": {"video": "H264", "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "\#(key)"}}}}]"#)
        do {
            let (_, held) = try allocations.resolve(inputs: asked, taskId: "t", knownSDPs: [])
            // The parser already reads SRTP: then the SDP carries the key.
            #expect(held["a"]?.sdp.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)") == true)
        } catch let error as ServiceError {
            #expect(error.kind == .invalidTask && error.path == "inputs[0].rtp.allocate")
        }
    }
}

extension UDPPortChecker {
    /// This host's real sockets: the allocator's tests probe ports on 127.0.0.1.
    static let host = UDPPortChecker(firstBusy: { UDPPortProbe.firstBusy($0, bindAddress: $1) },
                                     isLocalAddress: UDPPortProbe.isLocalAddress)
}
