/// Picks the streams Tessera will receive from the sections an SDP lists, and refuses what it
/// could not receive correctly.
///
/// Only the first enabled video and the first enabled audio section count (an SFU forwards one
/// of each per participant); in each, the first listed format Tessera can depacketize wins, as
/// the offerer lists formats in order of preference (RFC 3264 §5.1).
struct SDPMediaSelector {
    let document: SDPSectionReader

    func select() throws(SessionDescription.Invalid) -> SessionDescription {
        var unusable: [String] = []
        let video = try choose(.video, unusable: &unusable)
        let audio = try choose(.audio, unusable: &unusable)
        if video == nil && audio == nil {
            if unusable.isEmpty { unusable.append("no m=video or m=audio section") }
            throw .init("no supported media: " + unusable.joined(separator: "; "))
        }
        if let video, let audio {
            let videoPorts = [video.description.port, video.description.rtcpPort]
            let audioPorts = [audio.description.port, audio.description.rtcpPort]
            if Set(videoPorts).intersection(audioPorts).isEmpty == false {
                throw .init("m=audio line \(audio.line): RTP/RTCP ports \(Self.portPair(audioPorts)) collide with "
                            + "m=video line \(video.line) (\(Self.portPair(videoPorts)))")
            }
        }
        return SessionDescription(video: video?.description, audio: audio?.description)
    }

    private static func portPair(_ ports: [Int]) -> String { ports.map(String.init).joined(separator: "/") }

    /// The usable stream of `kind` with its m= line number, or nil with the reason in `unusable`.
    private func choose(_ kind: RTPMediaKind,
                        unusable: inout [String]) throws(SessionDescription.Invalid) -> (description: RTPMediaDescription, line: Int)? {
        let ofKind = document.sections.filter { $0.media == kind.rawValue }
        guard let section = ofKind.first(where: { $0.port != 0 }) else {
            if !ofKind.isEmpty { unusable.append("\(kind.rawValue) section is disabled (port 0)") }
            return nil
        }
        let place = "m=\(kind.rawValue) line \(section.line)"
        try Self.checkTransport(section.transport, crypto: section.crypto, at: place)
        var offered: [String] = []
        for format in section.formats {
            guard let payloadType = UInt8(format), payloadType < 128 else {
                throw .init("\(place): format \"\(format)\" is not an RTP payload type (0-127)")
            }
            guard let map = Self.rtpmap(payloadType, in: section) else {
                offered.append("payload type \(payloadType) (no a=rtpmap)")
                continue
            }
            guard let codec = RTPCodec(encodingName: map.encodingName), codec.kind == kind else {
                offered.append("\"\(map.encodingName)\"")
                continue
            }
            let parameters = section.formatParameters[payloadType]
            try Self.checkParameters(codec, parameters, at: parameters.map { "a=fmtp line \($0.line)" } ?? place)
            let description = try describe(section, kind: kind, payloadType: payloadType, codec: codec,
                                                map: map, at: place)
            return (description, section.line)
        }
        let names = offered.isEmpty ? ["no format"] : offered
        unusable.append("\(kind.rawValue) \(names.joined(separator: ", ")) \(names.count == 1 ? "is" : "are") not supported"
                        + " (use \(Self.supportedNames(kind)))")
        return nil
    }

    private static func supportedNames(_ kind: RTPMediaKind) -> String {
        let names = RTPCodec.allCases.filter { $0.kind == kind }.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// RFC 3551 §6 fixes payload types 0 and 8; every other one needs an rtpmap.
    private static func rtpmap(_ payloadType: UInt8, in section: SDPMediaSection) -> SDPRTPMap? {
        if let map = section.rtpmaps[payloadType] { return map }
        switch payloadType {
        case 0: return SDPRTPMap(encodingName: "PCMU", clockRate: 8000, channels: 1)
        case 8: return SDPRTPMap(encodingName: "PCMA", clockRate: 8000, channels: 1)
        default: return nil
        }
    }

    /// Plain RTP, or SRTP keyed in the SDP itself (SDES, `a=crypto`): DTLS-SRTP needs a
    /// handshake an SFU's plain forward does not make.
    private static func checkTransport(_ transport: String, crypto: [(value: String, line: Int)],
                                       at place: String) throws(SessionDescription.Invalid) {
        let upper = transport.uppercased()
        if upper.contains("SAVP") {
            guard ["RTP/SAVP", "RTP/SAVPF"].contains(upper) else {
                throw .init("\(place): transport \"\(transport)\" is not supported (DTLS-SRTP needs a handshake; "
                            + "use RTP/SAVP with a=crypto keys, or plain RTP/AVP)")
            }
            guard !crypto.isEmpty else { throw .init("\(place): \(transport) needs an a=crypto line with the SRTP key") }
            return
        }
        // An a=crypto line under RTP/AVP still means SRTP: the ffmpeg CLI writes its SRTP
        // outputs' SDP that way, and the key is unambiguous.
        guard ["RTP/AVP", "RTP/AVPF", "UDP/RTP/AVP", "UDP/RTP/AVPF"].contains(upper) else {
            throw .init("\(place): transport \"\(transport)\" is not supported (use RTP/AVP over UDP)")
        }
    }

    /// Parameters that change how the payload must be read: receiving these wrongly would give
    /// garbage pictures or sound rather than an error, so they are refused here.
    private static func checkParameters(_ codec: RTPCodec, _ parameters: SDPFormatParameters?,
                                        at place: String) throws(SessionDescription.Invalid) {
        let values = parameters?.parameters ?? [:]
        switch codec {
        case .h264 where values["packetization-mode"] == "2":
            throw .init("\(place): H264 packetization-mode 2 (interleaved) is not supported (use 0 or 1)")
        case .aac:
            let config = values["config"] ?? ""
            guard !config.isEmpty, config.count % 2 == 0, config.allSatisfy(\.isHexDigit) else {
                throw .init("\(place): mpeg4-generic needs a hexadecimal config in a=fmtp")
            }
            guard values["mode"]?.lowercased() == "aac-hbr" || values["sizelength"] != nil else {
                throw .init("\(place): mpeg4-generic needs mode=AAC-hbr (or sizelength) in a=fmtp")
            }
        default: return
        }
    }

    private func describe(_ section: SDPMediaSection, kind: RTPMediaKind, payloadType: UInt8,
                                 codec: RTPCodec, map: SDPRTPMap,
                                 at place: String) throws(SessionDescription.Invalid) -> RTPMediaDescription {
        // An a=rtcp naming the RTP port itself is multiplexing, whether or not a=rtcp-mux says so.
        let rtcpMux = section.rtcpMux || section.rtcpPort == section.port
        let rtcpPort = rtcpMux ? section.port : section.rtcpPort ?? section.port + 1
        guard rtcpPort <= 65535 else {
            throw .init("\(place): port \(section.port) leaves no port above it for RTCP (add a=rtcp or a=rtcp-mux)")
        }
        var description = RTPMediaDescription(
            kind: kind, port: section.port, rtcpPort: rtcpPort, rtcpMux: rtcpMux, payloadType: payloadType,
            codec: codec, clockRate: map.clockRate, channels: kind == .video ? 1 : map.channels ?? 1,
            formatParameters: section.formatParameters[payloadType]?.parameters ?? [:],
            address: section.address ?? document.sessionAddress,
            videoOrientation: kind == .video ? videoOrientation(section) : nil)
        description.rtxPayloadType = kind == .video ? Self.retransmissionPayloadType(for: payloadType, in: section) : nil
        description.feedback = RTCPFeedbackSupport(types: section.feedback["\(payloadType)", default: []]
                                                       .union(section.feedback["*", default: []]))
        if !section.crypto.isEmpty {
            do {
                description.srtp = try SRTPCryptoAttribute.firstSupported(section.crypto.map(\.value)).keying
            } catch {
                throw .init("a=crypto line \(section.crypto[0].line): \(error.description)")
            }
        }
        return description
    }

    /// The `rtx` payload type (RFC 4588 §8.6) whose `apt` names `payloadType`, if the section has one.
    private static func retransmissionPayloadType(for payloadType: UInt8, in section: SDPMediaSection) -> UInt8? {
        section.rtpmaps.filter { $0.value.encodingName.lowercased() == "rtx" }.keys.sorted().first {
            section.formatParameters[$0]?.parameters["apt"] == "\(payloadType)"
        }
    }

    /// The CVO extension, if the section (or the session) maps one: the quarter-turn URI first.
    private func videoOrientation(_ section: SDPMediaSection) -> VideoOrientationExtension? {
        let mapped = document.sessionExtensions.merging(section.extensions) { _, own in own }
        if let id = mapped[VideoOrientationExtension.uri] { return VideoOrientationExtension(id: id) }
        if let id = mapped[VideoOrientationExtension.highGranularityURI] {
            return VideoOrientationExtension(id: id, highGranularity: true)
        }
        return nil
    }
}
