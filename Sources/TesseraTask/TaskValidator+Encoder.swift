/// `encoder.video` and `encoder.audio`: ranges and defaults.
extension ValidationContext {
    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
                              "veryslow", "placebo"]
    /// The sample rates AAC defines in this range; the encoder accepts no others.
    static let aacSampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    mutating func resolveVideo(_ spec: VideoEncoderSpec, at path: String) -> VideoSettings? {
        let before = issues.count
        // Even sizes because 4:2:0 chroma has one sample per 2×2 pixels.
        checkSize(spec.width, at: path + ".width", range: 16...3840)
        checkSize(spec.height, at: path + ".height", range: 16...2160)
        let fps = checkRange(spec.fps ?? 30, at: path + ".fps", 1...60)
        let bitrate = checkRange(spec.bitrateKbps ?? 2000, at: path + ".bitrateKbps", 50...50_000)
        let gopSeconds = spec.gopSeconds ?? 2
        if !(gopSeconds > 0 && gopSeconds <= 20) {
            issues.add(path + ".gopSeconds", "must be greater than 0 and at most 20")
        }
        let codec = (spec.codec ?? "h264").lowercased()
        if codec != "h264" { issues.add(path + ".codec", "expected h264, got \"\(spec.codec!)\"") }
        let preset = spec.preset ?? "veryfast"
        if !Self.x264Presets.contains(preset) {
            issues.add(path + ".preset", "expected an x264 preset: \(Self.x264Presets.joinedAsChoice())")
        }
        let latency = EncoderLatency(rawValue: spec.latency ?? "normal")
        if latency == nil {
            issues.add(path + ".latency", "expected \(EncoderLatency.allCases.map(\.rawValue).joinedAsChoice())")
        }
        if let threads = spec.threads { _ = checkRange(threads, at: path + ".threads", 1...16) }
        let profile = resolveEnum(spec.profile, at: path + ".profile", default: H264Profile.high)
        // The renditions are checked against the keyframe interval even when gopSeconds or fps
        // had issues of their own: work it out from values in range, never from a caller's 1e300
        // (Int() of that traps, and this runs in the server).
        let checkedFps = (1...60).contains(fps) ? fps : 30
        let checkedGopSeconds = gopSeconds > 0 && gopSeconds <= 20 ? gopSeconds : 2
        let gopFrames = max(1, Int((checkedGopSeconds * Double(checkedFps)).rounded()))
        let renditions = resolveRenditions(spec.renditions, at: path + ".renditions", width: spec.width, height: spec.height,
                                           fps: checkedFps, gopFrames: gopFrames)
        guard issues.count == before, let latency, let profile, let renditions else { return nil }
        return VideoSettings(width: spec.width, height: spec.height, fps: fps, bitrateKbps: bitrate,
                             gopFrames: gopFrames, codec: codec, preset: preset, latency: latency, threads: spec.threads,
                             profile: profile, renditions: renditions)
    }

    mutating func resolveAudioSettings(_ spec: AudioEncoderSpec, at path: String) -> AudioSettings? {
        let before = issues.count
        let sampleRate = spec.sampleRate ?? 48000
        if !Self.aacSampleRates.contains(sampleRate) {
            issues.add(path + ".sampleRate", "expected one of \(Self.aacSampleRates.map(String.init).joinedAsChoice())")
        }
        let channels = spec.channels ?? 2
        if channels != 1 && channels != 2 { issues.add(path + ".channels", "expected 1 or 2") }
        let bitrate = checkRange(spec.bitrateKbps ?? 128, at: path + ".bitrateKbps", 16...512)
        let codec = (spec.codec ?? "aac").lowercased()
        if codec != "aac" { issues.add(path + ".codec", "expected aac, got \"\(spec.codec!)\"") }
        guard issues.count == before else { return nil }
        return AudioSettings(sampleRate: sampleRate, channels: channels, bitrateKbps: bitrate, codec: codec)
    }

    private mutating func checkSize(_ value: Int, at path: String, range: ClosedRange<Int>) {
        if !range.contains(value) || value % 2 != 0 {
            issues.add(path, "must be an even number from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    private mutating func checkRange(_ value: Int, at path: String, _ range: ClosedRange<Int>) -> Int {
        if !range.contains(value) { issues.add(path, "must be from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }
}
