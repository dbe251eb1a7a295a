// fuzz-modules: TesseraComposition TesseraRTP
import TesseraRTP

/// An SFU's SDP offer as a task document carries it: the section reader, the media selection
/// (rtpmap, fmtp, rtcp, rtcp-mux, rtcp-fb, extmap, RTX `apt`, `a=crypto`) and the a=fmtp values
/// read later (H.264 sprop-parameter-sets in base64, the AAC config in hex, AAC bit lengths).
///
/// Properties: a chosen stream's payload types are 7-bit, its ports are UDP ports and, with
/// rtcp-mux, one; the ports a receiver binds are distinct.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let description = try? SessionDescription.parse(text) else { return 0 }
    for media in [description.video, description.audio].compactMap({ $0 }) {
        require(media.payloadType < 128 && (media.rtxPayloadType ?? 0) < 128, "a payload type above 127")
        require(media.boundPorts.allSatisfy { (0...65_535).contains($0) }, "a port outside 0–65535: \(media.boundPorts)")
        require(!media.rtcpMux || media.rtcpPort == media.port, "rtcp-mux with a separate RTCP port")
        let parameters = media.formatParameters
        switch media.codec {
        case .h264:
            let sets = H264Depacketizer.parameterSets(fromSprop: parameters["sprop-parameter-sets"] ?? "")
            require(sets.allSatisfy { !$0.isEmpty }, "an empty parameter set")
            _ = H264Depacketizer(parameterSets: sets)
        case .aac:
            _ = parameters["config"].flatMap(AACDepacketizer.audioSpecificConfig(fromHex:))
            _ = AACDepacketizer(sizeLength: parameters["sizelength"].flatMap { Int($0) } ?? 13,
                                indexLength: parameters["indexlength"].flatMap { Int($0) } ?? 3,
                                indexDeltaLength: parameters["indexdeltalength"].flatMap { Int($0) } ?? 3)
        default:
            break
        }
    }
    let ports = description.boundPorts
    require(Set(ports).count == ports.count, "a port bound twice: \(ports)")
    return 0
}
