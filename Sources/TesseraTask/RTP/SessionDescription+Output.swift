/// The SDP of an RTP output: what Tessera sends, for the SFU's controller to hand to mediasoup's
/// PlainTransport, a Janus Streaming mountpoint or a VideoRoom remote publisher.
extension RTPOutputSettings {
    /// `profile-level-id` of the H.264 this output sends: constrained baseline at the level the
    /// size and rate need (the encoder is told the same level).
    public static func h264ProfileLevelId(_ video: VideoSettings) -> String {
        let level = H264Level.idc(width: video.width, height: video.height, fps: video.fps)
        return H264Profile.baseline.profileIdcAndConstraints + String(level, radix: 16, uppercase: false).leftPadded(to: 2)
    }

    /// The video section's `a=fmtp`, nil for VP8 (which has none).
    public func videoFormatParameters(_ video: VideoSettings) -> String? {
        guard videoCodec == .h264 else { return nil }
        return "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(Self.h264ProfileLevelId(video))"
    }

    /// The audio section's `a=fmtp` (RFC 7587 §7): stereo when the mix is.
    public func audioFormatParameters(_ audio: AudioSettings) -> String {
        let stereo = audio.channels == 2 ? "1" : "0"
        return "minptime=10;useinbandfec=1;stereo=\(stereo);sprop-stereo=\(stereo)"
    }

    /// `sendonly` sections with `a=ssrc` CNAMEs; video lists the feedback Tessera answers (PLI
    /// and FIR, no NACK: nothing is retransmitted), so its profile is AVPF (SAVPF with SRTP).
    public func sessionDescription(sessionName: String, cname: String, video videoSettings: VideoSettings?,
                                   audio audioSettings: AudioSettings) -> String {
        let addressType = host.contains(":") ? "IP6" : "IP4"
        let name = String(sessionName.filter { !$0.isNewline })
        var lines = ["v=0", "o=- 0 0 IN \(addressType) \(host)", "s=\(name.isEmpty ? "-" : name)",
                     "c=IN \(addressType) \(host)", "t=0 0"]
        let secure = srtp != nil
        if let video, let videoSettings {
            let pt = video.payloadType
            lines += ["m=video \(video.port) \(secure ? "RTP/SAVPF" : "RTP/AVPF") \(pt)",
                      "a=rtpmap:\(pt) \(videoCodec == .h264 ? "H264" : "VP8")/\(Self.videoClockRate)"]
            if let fmtp = videoFormatParameters(videoSettings) { lines.append("a=fmtp:\(pt) \(fmtp)") }
            lines += ["a=rtcp-fb:\(pt) nack pli", "a=rtcp-fb:\(pt) ccm fir"]
            lines += streamLines(video, cname: cname)
        }
        let pt = audio.payloadType
        lines += ["m=audio \(audio.port) \(secure ? "RTP/SAVP" : "RTP/AVP") \(pt)",
                  "a=rtpmap:\(pt) opus/\(Self.audioClockRate)/2", "a=fmtp:\(pt) \(audioFormatParameters(audioSettings))"]
        lines += streamLines(audio, cname: cname)
        return lines.map { $0 + "\r\n" }.joined()
    }

    private func streamLines(_ stream: Stream, cname: String) -> [String] {
        let cleanName = String(cname.filter { !$0.isNewline && $0 != " " })
        var lines = [rtcpMux ? "a=rtcp-mux" : "a=rtcp:\(stream.rtcpPort)", "a=ssrc:\(stream.ssrc) cname:\(cleanName)", "a=sendonly"]
        if let srtp { lines.append("a=crypto:1 \(srtp.suite) inline:\(srtp.key)") }
        return lines
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
