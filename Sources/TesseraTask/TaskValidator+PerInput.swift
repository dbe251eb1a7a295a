import Foundation
import TesseraRTP

/// `outputs[]` whose URL holds `{input}`: one remuxed recording per input (`PerInputRecording`).
/// Everything POST can know is checked here; a file or pull input's codecs are known only once it
/// is opened, so the recorder refuses those then, naming the file.
extension ValidationContext {
    mutating func resolvePerInputOutput(_ spec: OutputSpec, at index: Int, inputs: [ResolvedInput?],
                                        context: OutputContext) -> (kind: ResolvedOutput.Kind, upload: ObjectLocation?)? {
        let element = FieldPath.element("outputs", index)
        let path = element + ".url"
        let before = issues.count
        let scheme = TaskPathResolver.scheme(of: spec.url)
        if let scheme, scheme != "s3", scheme != "file" {
            issues.add(path, "{input} names one file per input: use a file path or s3://BUCKET/KEY (\(scheme): cannot hold it)")
            return nil
        }
        if HLSOutputs.isPlaylist(spec.url) {
            issues.add(path, "{input} recordings are .mkv, .webm or .mp4 files, not HLS")
            return nil
        }
        if spec.hls != nil { issues.add(element + ".hls", "only .m3u8 outputs take hls settings") }
        if spec.rtp != nil { issues.add(element + ".rtp", "only rtp://HOST:PORT outputs take rtp settings") }
        if spec.rendition != nil {
            issues.add(element + ".rendition", "an {input} recording keeps each input's own streams, not an encode; leave rendition out")
        }
        if context.mode == .relay {
            issues.add(path, "{input} recordings are made beside a mix; use mode mix")
            return nil
        }
        if let problem = Self.placeholderProblem(spec.url) {
            issues.add(path, problem)
            return nil
        }
        let name = spec.url.split(separator: "/").last.map(String.init) ?? spec.url
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
        guard let container = RecordingContainer(fileExtension: ext) else {
            issues.add(path, "an {input} recording is .mkv, .webm or .mp4; " + (ext.isEmpty ? "the name has no extension" : "not .\(ext)"))
            return nil
        }
        checkInputIds(inputs, at: path)
        checkCodecs(inputs, container: container, at: path)
        let resolved: (kind: ResolvedOutput.Kind, upload: ObjectLocation?)?
        if scheme == "s3" {
            resolved = resolvePerInputObject(spec.url, container: container, at: path)
        } else {
            resolved = resolvePerInputFile(spec.url, container: container, inputs: inputs, at: path)
        }
        return issues.count == before ? resolved : nil
    }

    /// Why `{input}` stands where it cannot (nil when it is once, in the file name).
    static func placeholderProblem(_ url: String) -> String? {
        let count = url.components(separatedBy: PerInputRecording.placeholder).count - 1
        if count > 1 { return "{input} may appear only once" }
        let name = url.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? url
        guard name.contains(PerInputRecording.placeholder) else {
            return "{input} must be in the file name, not in a folder (one folder holds every input's files)"
        }
        return nil
    }

    /// An input id becomes part of a file name: it must be one that cannot leave the folder.
    private mutating func checkInputIds(_ inputs: [ResolvedInput?], at path: String) {
        for case let input? in inputs where !TaskValidator.isValidTaskId(input.id) {
            issues.add(path, "input \"\(input.id)\" cannot name a file: with {input} outputs, input ids are 1–128 "
                       + "characters of A–Z, a–z, 0–9, '.', '_' or '-'")
        }
    }

    /// RTP inputs' codecs are known now (the SDP or the allocation): refuse what the container cannot hold.
    private mutating func checkCodecs(_ inputs: [ResolvedInput?], container: RecordingContainer, at path: String) {
        for case let input? in inputs {
            for codec in Self.announcedCodecs(input.source) where !container.accepts(codec) {
                issues.add(path, "input \"\(input.id)\" sends \(codec.displayName), which .\(container.rawValue) cannot hold "
                           + "(it takes \(container.acceptedCodecs)); use .mkv, which holds them all")
            }
        }
    }

    /// The codecs an RTP input announces; none for files and pulls (known once opened).
    static func announcedCodecs(_ source: ResolvedInput.Source) -> [RTPCodec] {
        switch source {
        case .rtpSDP(let sdp, _):
            guard let session = try? SessionDescription.parse(sdp) else { return [] }
            return [session.video?.codec, session.audio?.codec].compactMap { $0 }
        case .rtpAllocate(let request, _):
            return [request.video?.codec, request.audio?.codec].compactMap { $0 }
        case .file, .network, .sequence:
            return []
        }
    }

    private mutating func resolvePerInputFile(_ url: String, container: RecordingContainer, inputs: [ResolvedInput?],
                                              at path: String) -> (kind: ResolvedOutput.Kind, upload: ObjectLocation?)? {
        let given: String
        switch TaskPathResolver.classify(url) {
        case .success(.file(let file)): given = file
        case .success: issues.add(path, "{input} names one file per input: use a file path or s3://BUCKET/KEY"); return nil
        case .failure(let error): issues.add(path, error.message); return nil
        }
        let template: String
        switch TaskPathResolver.resolve(given, root: options.outputDirectory, confine: options.confinePaths) {
        case .failure(let error): issues.add(path, "\(error.message): \(url)"); return nil
        case .success(let resolved): template = resolved
        }
        let recording = PerInputRecording(template: template, container: container)
        // Writing over an input would destroy it while it is being read.
        for case let input? in inputs {
            let file = recording.path(forInput: input.id)
            if let owner = inputs.compactMap({ $0 }).first(where: { $0.source.filePaths.contains(file) }) {
                issues.add(path, "the file of input \"\(input.id)\" would overwrite the file of input \"\(owner.id)\"")
            }
        }
        return (.perInput(recording), nil)
    }

    private mutating func resolvePerInputObject(_ url: String, container: RecordingContainer,
                                                at path: String) -> (kind: ResolvedOutput.Kind, upload: ObjectLocation?)? {
        guard options.objectStorage else {
            issues.add(path, "this node has no object storage configured (--storage-endpoint, or AWS_ACCESS_KEY_ID and "
                       + "AWS_SECRET_ACCESS_KEY for AWS S3): an s3:// output cannot be uploaded")
            return nil
        }
        switch ObjectLocation.parse(url) {
        case .failure(let error):
            issues.add(path, error.message)
            return nil
        case .success(let (bucket, key)):
            let location = ObjectLocation(bucket: bucket, key: key, spoolDirectory: options.spoolDirectory + bucket + "/")
            return (.perInput(PerInputRecording(template: location.spoolPath, container: container)), location)
        }
    }
}
