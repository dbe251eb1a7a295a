/// Where a growing recording may be cut into multipart-upload parts: places after which the bytes
/// already written never change and every part before them is a whole unit of the container.
///
/// Fragmented MP4 is a run of top-level boxes (`ftyp`, `moov`, then `moof` + `mdat` pairs, `mfra`
/// at the end), each starting with its 32-bit size and type (size 1: a 64-bit size follows; size
/// 0: to the end of the file, which the muxer never writes while fragmenting). A boundary is the
/// start of a `moof` whose earlier boxes are all complete: everything before it is the header and
/// whole fragments, so the parts up to there make a playable file. MPEG-TS cuts anywhere on its
/// 188-byte packets. A live-written Matroska / WebM file (`live`: the muxer never seeks back) is
/// final up to its last byte: any length is a boundary, parts need not end on a cluster since
/// they are only ever read joined.
public struct FragmentBoundaries: Sendable, Equatable {
    public enum Layout: Sendable, Equatable { case fragmentedMP4, transportStream, appendOnly }

    public let layout: Layout
    /// Start of the next top-level box not yet seen whole.
    public private(set) var scanned: Int64 = 0
    /// The latest boundary found (0: none yet).
    public private(set) var latest: Int64 = 0

    public init(_ layout: Layout) { self.layout = layout }

    /// Reads box headers from `scanned` on while they lie within `length` bytes; `header(offset)`
    /// returns the 16 bytes at `offset` (fewer at the end of the file).
    public mutating func advance(length: Int64, header: (Int64) -> [UInt8]) {
        switch layout {
        case .transportStream:
            latest = length - length % 188
            scanned = latest
        case .appendOnly:
            latest = max(latest, length)
            scanned = latest
        case .fragmentedMP4:
            while scanned + 8 <= length {
                let bytes = header(scanned)
                guard bytes.count >= 8 else { return }
                var size = Int64(bytes[0...3].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                let type = String(decoding: bytes[4...7], as: UTF8.self)
                if size == 1 {
                    guard bytes.count >= 16 else { return }
                    size = Int64(bitPattern: bytes[8...15].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                }
                // Size 0 ("to the end") or a nonsense size: no later boundary can be trusted.
                guard size >= 8 else { return }
                if type == "moof" { latest = scanned }
                guard scanned + size <= length else { return }
                scanned += size
            }
        }
    }
}

/// Which bytes of a growing recording go up as the next multipart-upload part: every part but
/// the last at least `minimumPartBytes` (S3's 5 MiB) and ending on a boundary, the last one
/// whatever is left once the recording is finished.
public enum PartCutter {
    public static let minimumPartBytes: Int64 = 5 * 1024 * 1024

    /// The next part after `uploaded` bytes, or nil to wait for more.
    /// - `boundary`: the latest fragment boundary; `length`: bytes written so far;
    /// - `finished`: the muxer wrote its trailer, so `length` is the file's end.
    public static func nextPart(uploaded: Int64, boundary: Int64, length: Int64, finished: Bool,
                                minimumPartBytes: Int64 = minimumPartBytes) -> Range<Int64>? {
        if finished { return uploaded < length ? uploaded..<length : nil }
        guard boundary - uploaded >= minimumPartBytes else { return nil }
        return uploaded..<boundary
    }
}
