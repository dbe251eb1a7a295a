// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// A datagram on an RTP port: the header check the receiver runs before it looks at the sender,
/// the full parse, every header-extension element in both RFC 8285 forms, and CVO.
///
/// Properties: the header check and the parse agree (a header the check passes fails the parse
/// only for its padding or an empty payload); a parsed packet written back parses to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let problem = RTPPacket.headerProblem(bytes)
    switch RTPPacket.parse(bytes) {
    case .failure(let error):
        if let problem {
            require(problem == error, "header check says \(problem), parse says \(error)")
        } else {
            require(error == .badPadding || error == .emptyPayload, "header check passed, parse says \(error)")
        }
    case .success(let packet):
        require(problem == nil, "parsed, yet the header check says \(problem!)")
        require(RTPPacket.parse(packet.serialized()) == .success(packet), "a parsed packet written back parses differently")
        if let headerExtension = packet.headerExtension {
            for id in UInt8.min...UInt8.max {
                if let element = headerExtension.element(id: id) {
                    require(element.endIndex <= headerExtension.data.count, "element \(id) runs past the extension")
                }
            }
        }
        for highGranularity in [false, true] {
            _ = VideoOrientationExtension(id: 3, highGranularity: highGranularity).orientation(in: packet)
        }
    }
    return 0
}
