import Foundation

/// `outputs[]` with an `rtp://HOST:PORT` URL and its `rtp` object: the mix sent back into the room.
extension ValidationContext {

    /// Rates libopus encodes at; the RTP clock stays 48 kHz (RFC 7587).
    static let opusSampleRates = [8000, 12000, 16000, 24000, 48000]

    mutating func resolveRTPOutput(_ spec: OutputSpec, at index: Int, context: OutputContext) -> RTPOutputSettings? {
        let base = FieldPath.element("outputs", index)
        let urlPath = base + ".url"
        let path = base + ".rtp"
        let before = issues.count
        if context.mode == .relay {
            issues.add(urlPath, "an rtp output sends its own encodes (H.264 or VP8, Opus), so it needs mode mix")
        }
        if context.pace == .asap {
            issues.add(urlPath, "an rtp output is sent as it is made, so it needs pace realtime (a live task)")
        }
        if let rate = context.audioSampleRate, !Self.opusSampleRates.contains(rate) {
            issues.add("encoder.audio.sampleRate", "an rtp output sends Opus, which takes \(Self.opusSampleRates.map(String.init).joinedAsChoice()) Hz, not \(rate)")
        }
        guard let host = allowedHost(of: spec.url, at: urlPath) else { return nil }
        guard let components = URLComponents(string: spec.url), let port = components.port else {
            issues.add(urlPath, "an rtp output needs a port: rtp://HOST:PORT")
            return nil
        }
        if !(components.path.isEmpty || components.path == "/") || components.query != nil {
            issues.add(urlPath, "an rtp output is rtp://HOST:PORT, with no path or query (its settings go in \(path))")
        }
        let rtp = spec.rtp ?? RTPOutputSpec()
        let mux = rtp.rtcpMux ?? false
        let firstPort = checkPort(port, at: urlPath, rtcpMux: mux)
        let videoCodec = resolveEnum(rtp.videoCodec?.lowercased(), at: path + ".videoCodec", default: RTPOutputSettings.VideoCodec.h264)
        let audioCodec = resolveEnum(rtp.audioCodec?.lowercased(), at: path + ".audioCodec", default: RTPOutputSettings.AudioCodec.opus)
        let taskId = context.taskId ?? ""
        if !context.hasVideo {
            for (field, given) in [("videoCodec", rtp.videoCodec != nil), ("videoPayloadType", rtp.videoPayloadType != nil),
                                   ("videoSsrc", rtp.videoSsrc != nil), ("videoRtcpPort", rtp.videoRtcpPort != nil)] where given {
                issues.add(path + "." + field, "the task has no video (encoder.video), so this output sends audio alone")
            }
        }
        let audioPort = context.hasVideo ? rtp.audioPort ?? port + 2 : port
        if let given = rtp.audioPort {
            if context.hasVideo {
                _ = checkPort(given, at: path + ".audioPort", rtcpMux: mux)
            } else {
                issues.add(path + ".audioPort", "an audio-only task sends audio to the URL's port; leave audioPort out")
            }
        }
        // One port for both (a Janus VideoRoom remote publisher, a BUNDLE-style receiver): told
        // apart by SSRC and payload type. Otherwise an RTCP port must not land on the other's RTP.
        let sharedPort = context.hasVideo && audioPort == port
        if context.hasVideo, !mux, audioPort == port + 1 || audioPort + 1 == port {
            issues.add(path + ".audioPort", "\(audioPort) overlaps the video's RTP or RTCP port (\(port), \(port + 1))")
        }
        if firstPort != nil, rtp.audioPort == nil, audioPort > 65535 - (mux ? 0 : 1) {
            issues.add(path + ".audioPort", "the default, the URL's port + 2 (\(audioPort)), is out of range; give audioPort")
        }
        let videoPT = checkPayloadType(rtp.videoPayloadType ?? 96, at: path + ".videoPayloadType")
        let audioPT = checkPayloadType(rtp.audioPayloadType ?? 111, at: path + ".audioPayloadType")
        if sharedPort, videoPT == audioPT {
            issues.add(path + ".audioPayloadType", "video and audio share port \(port), so their payload types must differ")
        }
        let videoSSRC = checkSSRC(rtp.videoSsrc, at: path + ".videoSsrc")
            ?? RTPOutputSettings.defaultSSRC(taskId: taskId, url: spec.url, medium: "video")
        var audioSSRC = checkSSRC(rtp.audioSsrc, at: path + ".audioSsrc")
            ?? RTPOutputSettings.defaultSSRC(taskId: taskId, url: spec.url, medium: "audio")
        if context.hasVideo, videoSSRC == audioSSRC {
            if rtp.audioSsrc != nil && rtp.videoSsrc != nil {
                issues.add(path + ".audioSsrc", "must differ from videoSsrc (\(videoSSRC))")
            } else {
                audioSSRC = videoSSRC &+ 1
            }
        }
        for (field, given) in [("videoRtcpPort", rtp.videoRtcpPort), ("audioRtcpPort", rtp.audioRtcpPort)] {
            guard let given else { continue }
            if mux {
                issues.add(path + "." + field, "with rtcpMux, RTCP shares the RTP port; leave \(field) out")
            } else if !(1...65535).contains(given) {
                issues.add(path + "." + field, "must be from 1 to 65535")
            }
        }
        let srtp = rtp.srtp.flatMap { resolveSRTP($0, at: path + ".srtp") }
        guard issues.count == before, let firstPort, let videoCodec, let audioCodec else { return nil }
        let rtcp: (Int, Int?) -> Int = { port, given in mux ? port : given ?? port + 1 }
        let video = context.hasVideo
            ? RTPOutputSettings.Stream(port: firstPort, rtcpPort: rtcp(firstPort, rtp.videoRtcpPort), payloadType: videoPT,
                                       ssrc: videoSSRC) : nil
        let audio = RTPOutputSettings.Stream(port: audioPort, rtcpPort: rtcp(audioPort, rtp.audioRtcpPort), payloadType: audioPT,
                                             ssrc: audioSSRC)
        return RTPOutputSettings(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), video: video,
                                 videoCodec: videoCodec, audio: audio, audioCodec: audioCodec, rtcpMux: mux, srtp: srtp)
    }

    /// A destination port; its RTCP port (port + 1 without rtcp-mux) must exist too.
    private mutating func checkPort(_ port: Int, at path: String, rtcpMux: Bool) -> Int? {
        let highest = rtcpMux ? 65535 : 65534
        guard (1...highest).contains(port) else {
            issues.add(path, rtcpMux ? "port must be from 1 to 65535" : "port must be from 1 to 65534 (RTCP goes to port + 1)")
            return nil
        }
        return port
    }

    /// Dynamic payload types only (RFC 3551 §6): 96–127.
    private mutating func checkPayloadType(_ value: Int, at path: String) -> Int {
        if !(96...127).contains(value) { issues.add(path, "must be a dynamic payload type, 96 to 127") }
        return value
    }

    private mutating func checkSSRC(_ value: Int?, at path: String) -> UInt32? {
        guard let value else { return nil }
        guard (1...Int(UInt32.max)).contains(value) else {
            issues.add(path, "must be from 1 to 4294967295")
            return nil
        }
        return UInt32(value)
    }
}
