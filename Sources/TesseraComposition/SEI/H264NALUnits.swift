/// The NAL units of one H.264 access unit, in either of the two framings FFmpeg hands around:
/// Annex B (start codes `00 00 01` / `00 00 00 01`: RTP depacketizers, MPEG-TS, libx264's output)
/// or length-prefixed AVCC (MP4, FLV / RTMP; 4-byte big-endian lengths, as every muxer writes).
public enum H264NALUnits {
    public enum Framing: Sendable, Equatable {
        case annexB
        case lengthPrefixed(size: Int)
    }

    /// One NAL unit's place in the access unit: `start` is its header byte, `prefixStart` where
    /// its start code or length field begins.
    public struct Unit: Sendable, Equatable {
        public var prefixStart: Int
        public var start: Int
        public var end: Int
        public var type: UInt8
    }

    /// NAL unit types of coded slices (the picture itself); SEI must come before the first.
    public static func isSlice(_ type: UInt8) -> Bool { type >= 1 && type <= 5 }
    public static let seiType: UInt8 = 6

    /// 4-byte lengths when they chain exactly to the end of the data; otherwise Annex B. (The
    /// opening bytes alone can mislead: a first NAL unit of 256–511 bytes has the length field
    /// `00 00 01 xx`, which reads as a start code.)
    public static func framing(of data: UnsafeRawBufferPointer) -> Framing {
        var i = 0
        while i + 4 <= data.count {
            let length = Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            guard length > 0, length <= data.count - i - 4 else { return .annexB }
            i += 4 + length
        }
        return i == data.count && i > 0 ? .lengthPrefixed(size: 4) : .annexB
    }

    /// The NAL units of `data`; a malformed length ends the list (what came before is kept).
    public static func units(in data: UnsafeRawBufferPointer, framing: Framing? = nil) -> [Unit] {
        switch framing ?? self.framing(of: data) {
        case .annexB: return annexBUnits(data)
        case .lengthPrefixed(let size): return lengthPrefixedUnits(data, lengthSize: size)
        }
    }

    private static func annexBUnits(_ data: UnsafeRawBufferPointer) -> [Unit] {
        var units: [Unit] = []
        var open: (prefixStart: Int, start: Int)?
        var i = 0
        let n = data.count
        while i + 2 < n {
            // A start code: 00 00 01. Jump ahead fast on the common non-zero bytes.
            if data[i + 2] > 1 { i += 3; continue }
            if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
                let prefixStart = i > 0 && data[i - 1] == 0 ? i - 1 : i
                if let current = open { units.append(unit(current, end: trimZeros(data, from: current.start, to: prefixStart), data)) }
                open = (prefixStart, i + 3)
                i += 3
                continue
            }
            i += 1
        }
        if let current = open, current.start < n { units.append(unit(current, end: n, data)) }
        return units.filter { $0.end > $0.start }
    }

    /// Trailing zero bytes before a start code belong to no NAL unit.
    private static func trimZeros(_ data: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var end = end
        while end > start, data[end - 1] == 0 { end -= 1 }
        return end
    }

    private static func unit(_ open: (prefixStart: Int, start: Int), end: Int, _ data: UnsafeRawBufferPointer) -> Unit {
        Unit(prefixStart: open.prefixStart, start: open.start, end: end,
             type: open.start < end ? data[open.start] & 0x1F : 0)
    }

    private static func lengthPrefixedUnits(_ data: UnsafeRawBufferPointer, lengthSize: Int) -> [Unit] {
        var units: [Unit] = []
        var i = 0
        while i + lengthSize <= data.count {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(data[i + k]) }
            let start = i + lengthSize
            guard length > 0, start + length <= data.count else { break }
            units.append(Unit(prefixStart: i, start: start, end: start + length, type: data[start] & 0x1F))
            i = start + length
        }
        return units
    }

    /// `data` with `nal` (header byte included, emulation prevention applied) added just before
    /// the first slice — after any access unit delimiter, SPS, PPS and SEI already there, as the
    /// order of NAL units in an access unit requires — framed like the rest of `data`.
    public static func inserting(_ nal: [UInt8], into data: UnsafeRawBufferPointer) -> [UInt8] {
        let framing = self.framing(of: data)
        let units = self.units(in: data, framing: framing)
        let at = units.first(where: { isSlice($0.type) })?.prefixStart ?? data.count
        var prefix: [UInt8]
        switch framing {
        case .annexB: prefix = [0, 0, 0, 1]
        case .lengthPrefixed(let size): prefix = (0..<size).reversed().map { UInt8(truncatingIfNeeded: nal.count >> (8 * $0)) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(data.count + prefix.count + nal.count)
        out += data[0..<at]
        out += prefix
        out += nal
        out += data[at...]
        return out
    }
}
