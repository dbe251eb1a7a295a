import Foundation

/// `outputs[]`: RTMP / SRT pushes, RTP into the room, HLS, and files, each URL once.
extension ValidationContext {
    /// Everything an output needs from the rest of the task.
    struct OutputContext {
        var taskId: String?
        var hasVideo: Bool
        var mode: TaskMode?
        var pace: Pace?
        var audioSampleRate: Int?
        /// The resolved video encoder (nil without video, or when it had issues).
        var video: VideoSettings?
    }

    mutating func resolveOutputs(_ specs: [OutputSpec], inputs: [ResolvedInput?], hasVideo: Bool,
                                 mode: TaskMode?, context: OutputContext) -> [ResolvedOutput]? {
        let before = issues.count
        if specs.isEmpty { issues.add("outputs", "at least one output is required") }
        if specs.count > options.maxOutputs {
            issues.add("outputs", "at most \(options.maxOutputs) outputs are allowed (got \(specs.count))")
        }
        // Writing over an input would destroy it while it is being read.
        var inputFiles: [String: String] = [:]
        for case let input? in inputs { if case .file(let path) = input.source { inputFiles[path] = input.id } }
        var seenURLs: [String: Int] = [:]
        var seenFiles: [String: Int] = [:]
        var outputs: [ResolvedOutput] = []
        for (index, spec) in specs.enumerated() {
            let path = FieldPath.element("outputs", index) + ".url"
            if let earlier = seenURLs[spec.url] {
                issues.add(path, "duplicate of outputs[\(earlier)]")
                continue
            }
            seenURLs[spec.url] = index
            if PerInputRecording.isTemplate(spec.url) {
                if let output = resolvePerInputOutput(spec, at: index, inputs: inputs, context: context) {
                    var resolved = resolvedOutput(spec, kind: output.kind, at: index, mode: mode, context: context)
                    resolved.upload = output.upload
                    outputs.append(resolved)
                }
                continue
            }
            if TaskPathResolver.scheme(of: spec.url) == "rtp" {
                if let settings = resolveRTPOutput(spec, at: index, context: context) {
                    outputs.append(resolvedOutput(spec, kind: .rtp(settings), at: index, mode: mode, context: context))
                }
                continue
            }
            if spec.rtp != nil {
                issues.add(FieldPath.element("outputs", index) + ".rtp", "only rtp://HOST:PORT outputs take rtp settings")
            }
            if TaskPathResolver.scheme(of: spec.url) == "s3" {
                if let output = resolveObjectStorageOutput(spec, at: index, context: context) {
                    outputs.append(resolvedOutput(spec, kind: output.kind, at: index, mode: mode, context: context)
                        .uploading(to: output.upload))
                }
                continue
            }
            if HLSOutputs.isPlaylist(spec.url) {
                if let settings = resolveHLSOutput(spec, at: index, context: context) {
                    if let earlier = seenFiles[settings.playlist] {
                        issues.add(path, "names the same playlist as outputs[\(earlier)]")
                        continue
                    }
                    seenFiles[settings.playlist] = index
                    outputs.append(resolvedOutput(spec, kind: .hls(settings), at: index, mode: mode, context: context))
                }
                continue
            }
            if spec.hls != nil {
                issues.add(FieldPath.element("outputs", index) + ".hls", "only .m3u8 outputs take hls settings")
            }
            guard let kind = resolveOutputKind(spec.url, at: path, hasVideo: hasVideo, mode: mode) else { continue }
            if case .file(let file, _) = kind {
                if let earlier = seenFiles[file] {
                    issues.add(path, "names the same file as outputs[\(earlier)]")
                    continue
                }
                seenFiles[file] = index
                if let inputId = inputFiles[file] {
                    issues.add(path, "would overwrite the file of input \"\(inputId)\"")
                    continue
                }
            }
            outputs.append(resolvedOutput(spec, kind: kind, at: index, mode: mode, context: context))
        }
        return issues.count == before ? outputs : nil
    }

    /// The output with its `rendition` and `paused`. `paused`: recordings only (a file or HLS),
    /// and only live, where a `PATCH` can resume them, in a mix (a relay copies its input's
    /// packets as they come and has no keyframe to ask for).
    mutating func resolvedOutputBeforeThumbnails(_ spec: OutputSpec, kind: ResolvedOutput.Kind, at index: Int,
                                       mode: TaskMode?, context: OutputContext) -> ResolvedOutput {
        let rendition = resolveRendition(spec, kind: kind, at: index, context: context)
        guard let paused = spec.paused else { return ResolvedOutput(url: spec.url, kind: kind, rendition: rendition) }
        let path = FieldPath.element("outputs", index) + ".paused"
        if mode == .relay {
            issues.add(path, "a relay cannot pause an output; use mode mix")
            return ResolvedOutput(url: spec.url, kind: kind, paused: paused, rendition: rendition)
        }
        switch kind {
        case .file(_, .y4m):
            issues.add(path, "a .y4m output holds raw frames for inspection and cannot be paused")
        case .hls(let hls) where paused && hls.partSeconds != nil:
            // A part spanning the pause would break PART-TARGET, and players holding blocking
            // reloads would wait out the pause: refused rather than ignored.
            issues.add(path, "a Low-Latency HLS output cannot be paused; remove it and add it again, or pause a recording beside it")
        case .file, .hls, .perInput:
            if options.offline { issues.add(path, "an offline mix cannot resume an output; leave paused out") }
        case .rtmp, .srt, .rtp:
            issues.add(path, "only recordings (files, HLS) can be paused; remove a stream output instead")
        }
        return ResolvedOutput(url: spec.url, kind: kind, paused: paused, rendition: rendition)
    }

    private mutating func resolveOutputKind(_ url: String, at path: String, hasVideo: Bool,
                                            mode: TaskMode?) -> ResolvedOutput.Kind? {
        guard !url.isEmpty else {
            issues.add(path, "must not be empty")
            return nil
        }
        let location: TaskPathResolver.Location
        switch TaskPathResolver.classify(url) {
        case .success(let value): location = value
        case .failure(let error): issues.add(path, error.message); return nil
        }
        switch location {
        case .network(let scheme) where ["rtmp", "rtmps", "srt"].contains(scheme):
            guard allowedHost(of: url, at: path) != nil else { return nil }
            return scheme == "srt" ? .srt : .rtmp
        case .network(let scheme), .refused(let scheme):
            issues.add(path, "scheme \"\(scheme):\" is not an output; use rtmp:, rtmps:, srt:, rtp: or a file path")
            return nil
        case .file(let given):
            let ext = URL(fileURLWithPath: given).pathExtension
            guard let container = Container(fileExtension: ext) else {
                let named = ext.isEmpty ? "no extension" : "no container for extension \".\(ext)\""
                issues.add(path, "\(named); use .mp4, .flv, .mkv, .ts, .y4m or .m3u8 (HLS)")
                return nil
            }
            if container == .y4m && (!hasVideo || mode == .relay) {
                issues.add(path, ".y4m holds the raw composite, so it needs mode mix with encoder.video")
                return nil
            }
            switch TaskPathResolver.resolve(given, root: options.outputDirectory, confine: options.confinePaths) {
            case .failure(let error):
                issues.add(path, "\(error.message): \(url)")
                return nil
            case .success(let file):
                return .file(path: file, container: container)
            }
        }
    }
}
