import Foundation
import TesseraRTP

/// `inputs[]`: ids, sources (file / network / RTP), loop and start offset.
extension ValidationContext {
    /// One entry per document input (nil where it has an issue), so indices match the document.
    mutating func resolveInputs(_ specs: [InputSpec]) -> [ResolvedInput?] {
        if specs.isEmpty { issues.add("inputs", "at least one input is required") }
        if specs.count > options.maxInputs {
            issues.add("inputs", "at most \(options.maxInputs) inputs are allowed (got \(specs.count))")
        }
        var firstIndexOfId: [String: Int] = [:]
        return specs.enumerated().map { index, spec in
            let path = FieldPath.element("inputs", index)
            if spec.id.isEmpty {
                issues.add(path + ".id", "must not be empty")
            } else if let earlier = firstIndexOfId[spec.id] {
                issues.add(path + ".id", "duplicate id \"\(spec.id)\" (also inputs[\(earlier)])")
            } else {
                firstIndexOfId[spec.id] = index
            }
            return resolveInput(spec, at: path)
        }
    }

    private mutating func resolveInput(_ spec: InputSpec, at path: String) -> ResolvedInput? {
        var source: ResolvedInput.Source?
        switch (spec.url, spec.rtp, spec.sequence) {
        case (let url?, nil, nil): source = resolveInputURL(url, at: path + ".url")
        case (nil, let rtp?, nil): source = resolveRTP(rtp, at: path + ".rtp")
        case (nil, nil, let files?): source = resolveSequence(files, at: path + ".sequence")
        default: issues.add(path, "needs exactly one of url, rtp or sequence")
        }
        if spec.sequence != nil, spec.startAtMs != nil {
            issues.add(path + ".startAtMs", "a sequence input places each file by its own sequence[].startAtMs; leave startAtMs out")
        }
        let gaps = resolveGaps(spec.gaps, at: path + ".gaps")
        let loop = spec.loop ?? false
        if loop, let source, !source.isFile {
            issues.add(path + ".loop", "only a file input can loop")
        }
        var start: Int64 = 0
        if let ms = spec.startAtMs {
            // A week is far past any recording; the bound also keeps ms × 1000 inside Int64.
            if ms < 0 || ms > 604_800_000 {
                issues.add(path + ".startAtMs", "must be between 0 and 604800000 (7 days)")
            } else {
                start = Int64(ms) * 1000
            }
        }
        var silence = ResolvedInput.defaultSilenceMicroseconds
        if let ms = spec.silenceTimeoutMs {
            if ms < 200 || ms > 600_000 {
                issues.add(path + ".silenceTimeoutMs", "must be between 200 and 600000 (10 minutes)")
            } else {
                silence = Int64(ms) * 1000
            }
        }
        guard let source else { return nil }
        var input = ResolvedInput(id: spec.id, source: source, loop: loop, startAtMicroseconds: start, silenceMicroseconds: silence)
        input.seiPassthrough = spec.seiPassthrough ?? true
        input.gaps = gaps
        return input
    }

    mutating func resolveInputURL(_ url: String, at path: String) -> ResolvedInput.Source? {
        guard !url.isEmpty else {
            issues.add(path, "must not be empty")
            return nil
        }
        switch TaskPathResolver.classify(url) {
        case .failure(let error):
            issues.add(path, error.message)
            return nil
        case .success(.refused(let scheme)):
            issues.add(path, "scheme \"\(scheme):\" is not allowed; use a file path, file:, rtmp:, rtmps:, http:, https: or srt:")
            return nil
        case .success(.network):
            guard allowedHost(of: url, at: path) != nil else { return nil }
            return .network(url: url)
        case .success(.file(let given)):
            return resolveExistingFile(given, asWritten: url, at: path).map { .file(path: $0) }
        }
    }

    private mutating func resolveRTP(_ rtp: RTPSpec, at path: String) -> ResolvedInput.Source? {
        var filter: RTPSourceFilter?
        if let source = rtp.source {
            do {
                filter = try RTPSourceFilter(source)
            } catch {
                issues.add(path + ".source", error.description)
            }
        }
        switch (rtp.sdp, rtp.allocate) {
        case (let sdp?, nil):
            guard resolveSessionDescription(sdp, at: path + ".sdp") != nil else { return nil }
            return rtp.source != nil && filter == nil ? nil : .rtpSDP(sdp: sdp, source: filter)
        case (nil, let allocate?):
            guard let request = resolveAllocation(allocate, at: path + ".allocate") else { return nil }
            return rtp.source != nil && filter == nil ? nil : .rtpAllocate(request: request, source: filter)
        default:
            issues.add(path, "needs exactly one of sdp or allocate")
            return nil
        }
    }

    // MARK: - Files

    /// The absolute path of an existing file under the media root (when confined), or nil with an
    /// issue. `asWritten` is quoted in the message, never the resolved path, so the service does
    /// not reveal where its media root lies.
    mutating func resolveExistingFile(_ given: String, asWritten: String, at path: String) -> String? {
        switch TaskPathResolver.resolve(given, root: options.mediaRoot, confine: options.confinePaths) {
        case .failure(let error):
            issues.add(path, "\(error.message): \(asWritten)")
            return nil
        case .success(let resolved):
            guard options.fileExists(resolved) else {
                issues.add(path, Self.fileNotFound(asWritten: asWritten, given: given, resolved: resolved, options: options))
                return nil
            }
            if let refusal = options.inspectFile(resolved) {
                issues.add(path, "\(asWritten) \(refusal)")
                return nil
            }
            return resolved
        }
    }

    /// "file not found", naming where it was looked for: a newcomer's first mistake is a path
    /// resolved against another folder than they thought. Offline (`mix`, `validate`) the folder
    /// is named in full; the service (paths confined) names only its `--media-root` setting, whose
    /// value its start-up log shows, so an API client does not learn the server's file system.
    static func fileNotFound(asWritten: String, given: String, resolved: String, options: ValidationOptions) -> String {
        if options.confinePaths {
            return "file not found: \(asWritten) (looked in the server's media root, --media-root)"
        }
        // An absolute path names its folder already.
        guard !given.hasPrefix("/") else { return "file not found: \(asWritten)" }
        let folder = (resolved as NSString).deletingLastPathComponent
        return "file not found: \(asWritten) (looked in \(folder)/; relative paths resolve against --media-root)"
    }

    /// A PNG or JPEG file for `layout.backgroundImage`, region images and placeholders.
    mutating func resolveImage(_ text: String, at path: String) -> String? {
        guard !text.isEmpty else {
            issues.add(path, "must not be empty")
            return nil
        }
        let given: String
        switch TaskPathResolver.classify(text) {
        case .success(.file(let file)): given = file
        case .success: issues.add(path, "must be a file path (or file: URL) of a PNG or JPEG"); return nil
        case .failure(let error): issues.add(path, error.message); return nil
        }
        let ext = URL(fileURLWithPath: given).pathExtension.lowercased()
        guard ["png", "jpg", "jpeg"].contains(ext) else {
            issues.add(path, "must be a PNG or JPEG file (.png, .jpg, .jpeg): \(text)")
            return nil
        }
        return resolveExistingFile(given, asWritten: text, at: path)
    }
}

extension ResolvedInput.Source {
    /// Whether the source is a file on disk (the only kind that can loop).
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
