/// AAC over RTP as RFC 3640 mpeg4-generic in AAC-hbr style (AU-headers with size and index).
///
/// Every AU-size is checked against what the packet holds before any frame is handed out, so a
/// bad header drops the packet whole. An AU fragmented across packets (its size larger than the
/// packet's data) is reassembled from packets with the same timestamp and AU-size until complete;
/// a loss, a timestamp change or a mismatching size drops the partial AU. AU-Index and
/// AU-Index-delta are read but not used: interleaving is not supported, AU i of a packet has
/// timestamp + i × samplesPerFrame (as FFmpeg's rtpdec does).
public struct AACDepacketizer: RTPDepacketizer {
    private let sizeLength: Int
    private let indexLength: Int
    private let indexDeltaLength: Int
    private let samplesPerFrame: Int
    /// No AU-size can exceed what `sizeLength` bits hold; fragments are bounded by it too.
    public let maxFrameBytes: Int
    public private(set) var statistics = DepacketizerStatistics()
    private var fragment: [UInt8] = []
    private var fragmentSize = 0
    private var fragmentTimestamp: UInt32 = 0
    /// The dropped partial AU's timestamp: its remaining fragments are ignored, not counted again.
    private var droppedFragmentTimestamp: UInt32?

    public init(sizeLength: Int = 13, indexLength: Int = 3, indexDeltaLength: Int = 3, samplesPerFrame: Int = 1024) {
        self.sizeLength = min(max(sizeLength, 0), 24)
        self.indexLength = min(max(indexLength, 0), 24)
        self.indexDeltaLength = min(max(indexDeltaLength, 0), 24)
        self.samplesPerFrame = samplesPerFrame
        maxFrameBytes = (1 << self.sizeLength) - 1
    }

    public mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        let payload = packet.payload
        guard let layout = headerLayout(payload) else {
            dropFragment()
            statistics.malformedPackets += 1
            return []
        }
        if layout.fragmentSize > 0 {
            return reassemble(payload[layout.dataOffset...], size: layout.fragmentSize, packet: packet,
                              arrivalMicroseconds: arrivalMicroseconds)
        }
        dropFragment()
        var frames: [EncodedMediaFrame] = []
        frames.reserveCapacity(layout.count)
        var reader = BitReader(bytes: payload, bitOffset: 16)
        var dataOffset = layout.dataOffset
        for index in 0..<layout.count {
            let size = reader.read(sizeLength)
            reader.skip(index == 0 ? indexLength : indexDeltaLength)
            guard size > 0 else { continue }
            frames.append(EncodedMediaFrame(
                data: Array(payload[dataOffset..<dataOffset + size]),
                rtpTimestamp: packet.timestamp &+ UInt32(truncatingIfNeeded: index * samplesPerFrame),
                isKeyframe: true, arrivalMicroseconds: arrivalMicroseconds))
            dataOffset += size
        }
        statistics.frames += Int64(frames.count)
        return frames
    }

    public mutating func packetsLost() { dropFragment() }

    public mutating func reset() {
        dropFragment()
        droppedFragmentTimestamp = nil
    }

    // MARK: - AU headers

    /// Where the AUs start and how many there are; `fragmentSize` > 0 when the packet holds one
    /// AU larger than its data (a fragment). Nil if any length runs past the payload.
    private func headerLayout(_ payload: [UInt8]) -> (count: Int, dataOffset: Int, fragmentSize: Int)? {
        guard payload.count >= 2 else { return nil }
        let headerBits = Int(payload[0]) << 8 | Int(payload[1])
        let dataOffset = 2 + (headerBits + 7) / 8
        guard headerBits > 0, dataOffset <= payload.count else { return nil }
        var reader = BitReader(bytes: payload, bitOffset: 16)
        var count = 0, total = 0, lastSize = 0
        while reader.bitOffset < 16 + headerBits {
            let headerLength = sizeLength + (count == 0 ? indexLength : indexDeltaLength)
            guard headerLength > 0, reader.bitOffset + headerLength <= 16 + headerBits else { return nil }
            lastSize = reader.read(sizeLength)
            reader.skip(headerLength - sizeLength)
            total += lastSize
            count += 1
        }
        let available = payload.count - dataOffset
        if count == 1 && lastSize > available { return (1, dataOffset, lastSize) }
        return total <= available ? (count, dataOffset, 0) : nil
    }

    // MARK: - Fragments

    private mutating func reassemble(_ piece: ArraySlice<UInt8>, size: Int, packet: RTPPacket,
                                     arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        let continues = !fragment.isEmpty && packet.timestamp == fragmentTimestamp && size == fragmentSize
        if !continues {
            guard packet.timestamp != droppedFragmentTimestamp else { return [] }
            dropFragment()
            fragmentTimestamp = packet.timestamp
            fragmentSize = size
            fragment.reserveCapacity(size)
        }
        guard fragment.count + piece.count <= size, !piece.isEmpty else {
            dropFragment()
            statistics.malformedPackets += 1
            return []
        }
        fragment.append(contentsOf: piece)
        guard fragment.count == size else {
            if packet.marker { dropFragment() }  // the last fragment came up short
            return []
        }
        let frame = EncodedMediaFrame(data: fragment, rtpTimestamp: fragmentTimestamp, isKeyframe: true,
                                      arrivalMicroseconds: arrivalMicroseconds)
        fragment = []
        statistics.frames += 1
        return [frame]
    }

    private mutating func dropFragment() {
        droppedFragmentTimestamp = nil
        guard !fragment.isEmpty else { return }
        statistics.droppedFrames += 1
        droppedFragmentTimestamp = fragmentTimestamp
        fragment = []
    }
}

extension AACDepacketizer {
    /// AudioSpecificConfig bytes from the SDP's `config=` hex; nil if not hex.
    public static func audioSpecificConfig(fromHex hex: String) -> [UInt8]? {
        let digits = hex.utf8.compactMap { character -> UInt8? in
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        guard !digits.isEmpty, digits.count == hex.utf8.count, digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}

/// Reads big-endian bit fields; callers check lengths first.
struct BitReader {
    let bytes: [UInt8]
    var bitOffset: Int

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = bytes[bitOffset >> 3]
            value = value << 1 | Int(byte >> (7 - UInt8(bitOffset & 7)) & 1)
            bitOffset += 1
        }
        return value
    }

    mutating func skip(_ count: Int) { bitOffset += count }
}
