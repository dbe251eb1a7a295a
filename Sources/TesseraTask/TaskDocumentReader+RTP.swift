import TesseraRTP
/// Reads `inputs[].rtp`: types, required and unknown fields, with their paths. Values are checked
/// by `TaskValidator` (`TaskValidator+RTPAllocation.swift`).
extension TaskDocumentReader {
    static func readRTP(_ rtp: JSONObjectReader, issues: inout IssueList) -> RTPSpec {
        var rtp = rtp
        var spec = RTPSpec(sdp: rtp.string("sdp", issues: &issues))
        if let allocate = rtp.object("allocate", issues: &issues) {
            spec.allocate = readAllocation(allocate, issues: &issues)
        }
        spec.source = rtp.string("source", issues: &issues)
        rtp.reportUnknownFields(issues: &issues)
        return spec
    }

    static func readAllocation(_ allocate: JSONObjectReader, issues: inout IssueList) -> RTPAllocation {
        var allocate = allocate
        var allocation = RTPAllocation()
        if let value = allocate.value("video", issues: &issues) {
            allocation.video = readMedium(value, path: allocate.path("video"), issues: &issues)
        }
        if let value = allocate.value("audio", issues: &issues) {
            allocation.audio = readMedium(value, path: allocate.path("audio"), issues: &issues)
        }
        if let extensions = allocate.object("extensions", issues: &issues) {
            // The keys are URIs (data), so no key is "unknown".
            var ids: [String: Int] = [:]
            for (uri, value) in extensions.entries {
                if let id = JSONObjectReader.int(value, path: extensions.path(uri), issues: &issues) { ids[uri] = id }
            }
            allocation.extensions = ids
        }
        allocation.rtcpMux = allocate.bool("rtcpMux", issues: &issues)
        if let srtp = allocate.object("srtp", issues: &issues) { allocation.srtp = readSRTP(srtp, issues: &issues) }
        allocate.reportUnknownFields(issues: &issues)
        return allocation
    }

    /// `"H264"`, or `{"codec": "H264", "payloadType": 99, …}`.
    private static func readMedium(_ value: JSONValue, path: String, issues: inout IssueList) -> RTPMediumSpec? {
        if case .string(let codec) = value { return RTPMediumSpec(codec: codec) }
        guard case .object = value else {
            issues.add(path, "expected a codec name or an object, got \(value.typeName)")
            return nil
        }
        guard var object = JSONObjectReader(value, path: path, issues: &issues) else { return nil }
        var medium = RTPMediumSpec(codec: object.string("codec", required: true, issues: &issues) ?? "")
        medium.payloadType = object.int("payloadType", issues: &issues)
        medium.clockRate = object.int("clockRate", issues: &issues)
        medium.channels = object.int("channels", issues: &issues)
        medium.fmtp = object.string("fmtp", issues: &issues)
        medium.rtxPayloadType = object.int("rtxPayloadType", issues: &issues)
        object.reportUnknownFields(issues: &issues)
        return medium
    }

    /// `{"suite", "key"}`, both required.
    static func readSRTP(_ srtp: JSONObjectReader, issues: inout IssueList) -> SRTPSpec {
        var srtp = srtp
        let spec = SRTPSpec(suite: srtp.string("suite", required: true, issues: &issues) ?? "",
                            key: srtp.string("key", required: true, issues: &issues) ?? "")
        srtp.reportUnknownFields(issues: &issues)
        return spec
    }

    /// `outputs[].rtp`.
    static func readRTPOutput(_ rtp: JSONObjectReader, issues: inout IssueList) -> RTPOutputSpec {
        var rtp = rtp
        var spec = RTPOutputSpec()
        spec.audioPort = rtp.int("audioPort", issues: &issues)
        spec.videoRtcpPort = rtp.int("videoRtcpPort", issues: &issues)
        spec.audioRtcpPort = rtp.int("audioRtcpPort", issues: &issues)
        spec.videoCodec = rtp.string("videoCodec", issues: &issues)
        spec.audioCodec = rtp.string("audioCodec", issues: &issues)
        spec.videoPayloadType = rtp.int("videoPayloadType", issues: &issues)
        spec.audioPayloadType = rtp.int("audioPayloadType", issues: &issues)
        spec.videoSsrc = rtp.int("videoSsrc", issues: &issues)
        spec.audioSsrc = rtp.int("audioSsrc", issues: &issues)
        spec.rtcpMux = rtp.bool("rtcpMux", issues: &issues)
        if let srtp = rtp.object("srtp", issues: &issues) { spec.srtp = readSRTP(srtp, issues: &issues) }
        rtp.reportUnknownFields(issues: &issues)
        return spec
    }
}
