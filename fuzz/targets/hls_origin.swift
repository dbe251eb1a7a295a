// fuzz-sources: Sources/TesseraService/HLSOrigin/HLSBlockingRequest.swift Sources/TesseraService/HLSOrigin/HLSPlaylistSummary.swift Sources/TesseraService/HLSOrigin/HLSOutputNames.swift Sources/TesseraService/HLSOrigin/HLSByteRange.swift Sources/TesseraService/HLSOrigin/HLSOriginFile.swift

/// What a viewer's request to the HLS origin carries, as the origin reads it: the query's
/// delivery directives (`_HLS_msn`, `_HLS_part`, `_HLS_skip`) decided against a playlist, a
/// `Range` header, and a file name matched against an output's names. Compiled with the origin's
/// pure files alone (TesseraService is too heavy to build here).
///
/// Input: line 1 the query (`a=b&c=d`), line 2 the `Range` header, line 3 a file name, the rest
/// a playlist as the origin reads it from disk.
///
/// Properties: accepted directives are 0–999999999; a hold waits for the segment asked for, a
/// finite time of at least a second; a range lies inside the file; a name the origin serves is a
/// plain name of the output's own (its stem first, no path).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    func line(_ index: Int) -> String { index < lines.count ? lines[index] : "" }

    let query = line(0).split(separator: "&").map { pair -> (name: String, value: String) in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
    let playlist = HLSPlaylistSummary(text: line(3))
    if case .success(let request) = HLSBlockingRequest.parse(query) {
        for value in [request.msn, request.part].compactMap({ $0 }) {
            require((0...999_999_999).contains(value), "a directive of \(value) accepted")
        }
        switch request.decide(playlist) {
        case .hold(let awaited, let timeout, _):
            require(timeout.isFinite && timeout >= 1, "a hold of \(timeout) s")
            switch awaited {
            case .part(let position): require(position.msn == request.msn && position.part == request.part, "holds for \(position)")
            case .segment(let msn): require(msn == request.msn && request.part == nil, "holds for segment \(msn)")
            }
            require(!awaited.isListed(in: playlist), "holds for what the playlist lists")
        case .answer, .refuse:
            break
        }
    }

    let length = count % 5_000
    let range = HLSByteRange.decide(line(1).isEmpty ? nil : line(1), length: length)
    if case .part(let first, let last) = range {
        require(0 <= first && first <= last && last < length, "range \(first)-\(last) of \(length) bytes")
    }
    _ = range.contentRange(length: length)

    let name = line(2)
    for names in [HLSOutputNames(playlistName: "room.m3u8"), HLSOutputNames(playlistName: "room.m3u8", renditions: 3, thumbnails: true)] {
        guard let file = HLSOriginFile.classify(name, names: names) else { continue }
        require(name.hasPrefix("room") && !name.contains("/") && !name.contains("\\") && !name.hasPrefix("."),
                "serves \(name)")
        require(file.name == name, "serves \(file.name) for \(name)")
    }
    _ = HLSOriginFile.stem(of: name)
    return 0
}
