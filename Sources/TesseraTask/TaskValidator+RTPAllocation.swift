import Foundation
import TesseraRTP

/// `inputs[].rtp.allocate`: what the SFU negotiated, checked field by field so that the SDP the
/// service writes for it is one the RTP ingest receives, and nothing the caller wrote can break
/// out of its SDP line.
extension ValidationContext {
    mutating func resolveAllocation(_ allocate: RTPAllocation, at path: String) -> RTPAllocationRequest? {
        let before = issues.count
        let video = allocate.video.flatMap { resolveMedium($0, kind: .video, at: path + ".video") }
        let audio = allocate.audio.flatMap { resolveMedium($0, kind: .audio, at: path + ".audio") }
        if allocate.video == nil && allocate.audio == nil { issues.add(path, "needs video, audio or both") }
        let extensions = resolveExtensions(allocate.extensions ?? [:], at: path + ".extensions")
        let srtp = allocate.srtp.flatMap { resolveSRTP($0, at: path + ".srtp") }
        guard issues.count == before else { return nil }
        return RTPAllocationRequest(video: video, audio: audio, extensions: extensions, rtcpMux: allocate.rtcpMux ?? false,
                                    srtp: srtp)
    }

    // MARK: Media

    private mutating func resolveMedium(_ spec: RTPMediumSpec, kind: RTPMediaKind,
                                        at path: String) -> RTPAllocationRequest.Medium? {
        guard let codec = RTPCodec(allocationName: spec.codec, kind: kind) else {
            let expected = kind == .video ? "H264, VP8 or VP9" : "opus, aac, pcmu or pcma"
            issues.add(spec.isCodecOnly ? path : path + ".codec", "expected \(expected), got \"\(spec.codec)\"")
            return nil
        }
        let before = issues.count
        var medium = RTPAllocationRequest.Medium(codec: codec)
        if let payloadType = spec.payloadType {
            checkPayloadType(payloadType, codec: codec, at: path + ".payloadType")
            medium.payloadType = UInt8(clamping: payloadType)
        }
        if let clockRate = spec.clockRate {
            checkClockRate(clockRate, codec: codec, payloadType: medium.payloadType, at: path + ".clockRate")
            medium.clockRate = clockRate
        }
        if let channels = spec.channels {
            checkChannels(channels, codec: codec, payloadType: medium.payloadType, at: path + ".channels")
            medium.channels = channels
        }
        if let fmtp = spec.fmtp {
            checkFormatParameters(fmtp, codec: codec, at: path + ".fmtp")
            medium.fmtp = fmtp
        } else if codec == .aac, medium.clockRate != 48000 || medium.channels != 2 {
            // The default config describes 48 kHz stereo; any other stream needs its own.
            issues.add(path + ".fmtp", "required for AAC other than 48000 Hz stereo: the mpeg4-generic parameters with its config")
        }
        if let rtx = spec.rtxPayloadType {
            if kind == .audio {
                issues.add(path + ".rtxPayloadType", "only video is retransmitted (RTX); remove it from audio")
            } else if !(96...127).contains(rtx) {
                issues.add(path + ".rtxPayloadType", "must be a dynamic payload type 96-127, got \(rtx)")
            } else if rtx == Int(medium.payloadType) {
                issues.add(path + ".rtxPayloadType", "must differ from the payload type (\(medium.payloadType))")
            } else {
                medium.rtxPayloadType = UInt8(rtx)
            }
        }
        return issues.count == before ? medium : nil
    }

    /// Dynamic types (RFC 3551 §3), or G.711's static ones for G.711 itself.
    private mutating func checkPayloadType(_ payloadType: Int, codec: RTPCodec, at path: String) {
        if (96...127).contains(payloadType) { return }
        if (payloadType == 0 && codec == .pcmu) || (payloadType == 8 && codec == .pcma) { return }
        issues.add(path, "must be a dynamic payload type 96-127 (or 0 for PCMU, 8 for PCMA), got \(payloadType)")
    }

    private mutating func checkClockRate(_ rate: Int, codec: RTPCodec, payloadType: UInt8, at path: String) {
        switch codec {
        case .h264, .vp8, .vp9:
            if rate != 90000 { issues.add(path, "video RTP runs on a 90000 Hz clock, got \(rate)") }
        case .opus:
            if rate != 48000 { issues.add(path, "Opus RTP runs on a 48000 Hz clock (RFC 7587), got \(rate)") }
        case .pcmu, .pcma:
            if payloadType < 96, rate != 8000 {
                issues.add(path, "static payload type \(payloadType) is 8000 Hz; use a dynamic payload type for \(rate)")
            } else if !(8000...48000).contains(rate) {
                issues.add(path, "must be 8000-48000, got \(rate)")
            }
        case .aac:
            let rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
            if !rates.contains(rate) { issues.add(path, "must be an AAC sampling rate (8000-96000, e.g. 44100 or 48000), got \(rate)") }
        }
    }

    private mutating func checkChannels(_ channels: Int, codec: RTPCodec, payloadType: UInt8, at path: String) {
        switch codec {
        case .h264, .vp8, .vp9:
            issues.add(path, "only audio has channels; remove it from video")
        case .opus:
            // Mono or stereo, Opus says channels 2 in its rtpmap (RFC 7587 §7).
            if channels != 2 { issues.add(path, "Opus is always signalled with 2 channels (RFC 7587), got \(channels)") }
        case .pcmu, .pcma:
            if payloadType < 96, channels != 1 {
                issues.add(path, "static payload type \(payloadType) is mono; use a dynamic payload type for \(channels) channels")
            } else if !(1...2).contains(channels) {
                issues.add(path, "must be 1 or 2, got \(channels)")
            }
        case .aac:
            if !(1...8).contains(channels) { issues.add(path, "must be 1-8, got \(channels)") }
        }
    }

    /// One `a=fmtp` value: printable, one line, and none of the parameters the ingest refuses.
    private mutating func checkFormatParameters(_ fmtp: String, codec: RTPCodec, at path: String) {
        guard !fmtp.trimmingCharacters(in: .whitespaces).isEmpty else {
            issues.add(path, "must not be empty (leave it out for none)")
            return
        }
        guard fmtp.utf8.count <= 4096, fmtp.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            issues.add(path, "must be one line of at most 4096 printable characters")
            return
        }
        var parameters: [String: String] = [:]
        for pair in fmtp.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let key = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            parameters[key] = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
        switch codec {
        case .h264 where parameters["packetization-mode"] == "2":
            issues.add(path, "H264 packetization-mode 2 (interleaved) is not supported (use 0 or 1)")
        case .aac:
            let config = parameters["config"] ?? ""
            if config.isEmpty || config.count % 2 != 0 || !config.allSatisfy(\.isHexDigit) {
                issues.add(path, "mpeg4-generic needs a hexadecimal config (the AudioSpecificConfig)")
            } else if parameters["mode"]?.lowercased() != "aac-hbr" && parameters["sizelength"] == nil {
                issues.add(path, "mpeg4-generic needs mode=AAC-hbr (or sizelength)")
            }
        default:
            return
        }
    }

    // MARK: Extensions and keys

    /// One-byte header extension ids (RFC 8285 §4.2: 1–14), one URI each.
    private mutating func resolveExtensions(_ extensions: [String: Int], at path: String) -> [String: Int] {
        var uriOfId: [Int: String] = [:]
        for (uri, id) in extensions.sorted(by: { $0.key < $1.key }) {
            let place = FieldPath.member(path, uri)
            if uri.isEmpty || uri.utf8.count > 1024 || uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
                issues.add(place, "must be a URI without spaces or control characters")
            } else if !(1...14).contains(id) {
                issues.add(place, "must be a one-byte header extension id 1-14, got \(id)")
            } else if let other = uriOfId[id] {
                issues.add(place, "id \(id) is also given to \(other)")
            } else {
                uriOfId[id] = uri
            }
        }
        return extensions
    }

    /// The key is a secret: messages name its length, never its text.
    mutating func resolveSRTP(_ spec: SRTPSpec, at path: String) -> SRTPSpec? {
        guard let suite = SRTPSuite(rawValue: spec.suite) else {
            let names = SRTPSuite.allCases.map(\.rawValue)
            issues.add(path + ".suite", "expected \(names.dropLast().joined(separator: ", ")) or \(names.last!), got \"\(spec.suite)\"")
            return nil
        }
        let bytes = suite.masterKeyAndSaltLength
        guard let key = Data(base64Encoded: spec.key) else {
            issues.add(path + ".key", "must be base64 (the master key and salt, \(bytes) bytes)")
            return nil
        }
        guard key.count == bytes else {
            issues.add(path + ".key", "\(spec.suite) needs \(bytes) bytes of master key and salt, got \(key.count)")
            return nil
        }
        return SRTPSpec(suite: spec.suite, key: spec.key)
    }
}

extension RTPAllocationRequest {
    /// Reads and checks one `rtp.allocate` object on its own, for the service's port allocator,
    /// which works on the document's JSON (issues at `path`, as in a whole document).
    public static func read(_ value: JSONValue, path: String) -> Result<RTPAllocationRequest, ValidationFailure> {
        var issues = IssueList()
        guard let object = JSONObjectReader(value, path: path, issues: &issues) else {
            return .failure(ValidationFailure(issues: issues.items))
        }
        let allocation = TaskDocumentReader.readAllocation(object, issues: &issues)
        guard issues.isEmpty else { return .failure(ValidationFailure(issues: issues.items)) }
        var context = ValidationContext(options: .mix(directory: "/"))
        guard let request = context.resolveAllocation(allocation, at: path) else {
            return .failure(ValidationFailure(issues: context.issues.items))
        }
        return .success(request)
    }
}
