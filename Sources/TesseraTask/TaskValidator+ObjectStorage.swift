/// `outputs[]` whose URL is `s3://BUCKET/KEY`: a recording (`.mp4`, `.ts`) or HLS (`.m3u8`)
/// written to the node's spool and uploaded to its object store while it is written.
extension ValidationContext {
    mutating func resolveObjectStorageOutput(_ spec: OutputSpec, at index: Int,
                                             context: OutputContext) -> (kind: ResolvedOutput.Kind, upload: ObjectLocation)? {
        let urlPath = FieldPath.element("outputs", index) + ".url"
        guard options.objectStorage else {
            issues.add(urlPath, "this node has no object storage configured (--storage-endpoint, or AWS_ACCESS_KEY_ID and "
                       + "AWS_SECRET_ACCESS_KEY for AWS S3): an s3:// output cannot be uploaded")
            return nil
        }
        let bucket: String
        let key: String
        switch ObjectLocation.parse(spec.url) {
        case .failure(let error):
            issues.add(urlPath, error.message)
            return nil
        case .success(let parsed):
            (bucket, key) = parsed
        }
        if context.mode == .relay {
            issues.add(urlPath, "an s3:// output is recorded by the mix's own encoder, so it needs mode mix")
            return nil
        }
        let location = ObjectLocation(bucket: bucket, key: key, spoolDirectory: options.spoolDirectory + bucket + "/")
        let ext = key.split(separator: "/").last.flatMap { name in name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } } ?? ""
        if ext.lowercased() == "m3u8" {
            // With renditions the worker writes a ladder (a master over one playlist per rendition)
            // into the spool, and the uploader mirrors each playlist, then the master.
            guard let hls = resolveHLSOutput(spec, at: index, context: context, spoolPlaylist: location.spoolPath) else { return nil }
            return (.hls(hls), location)
        }
        if spec.hls != nil {
            issues.add(FieldPath.element("outputs", index) + ".hls", "only .m3u8 outputs take hls settings")
        }
        // Only append-only containers can go up while they are written: fragmented MP4 and MPEG-TS.
        // (Matroska and FLV go back to their header at the end.)
        guard let container = Container(fileExtension: ext), container == .mp4 || container == .ts else {
            issues.add(urlPath, "an s3:// output is .mp4 (fragmented MP4), .ts or .m3u8 (HLS), uploaded while it is written; "
                       + (ext.isEmpty ? "the key has no extension" : "not .\(ext)"))
            return nil
        }
        return (.file(path: location.spoolPath, container: container), location)
    }
}

extension ResolvedOutput {
    /// This output, uploaded to `location`.
    func uploading(to location: ObjectLocation) -> ResolvedOutput {
        var copy = self
        copy.upload = location
        return copy
    }
}
