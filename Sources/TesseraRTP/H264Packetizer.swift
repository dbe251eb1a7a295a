/// Annex B access units to H.264 RTP payloads (RFC 6184, packetization-mode 1).
///
/// The sending side of `H264Depacketizer`: single NAL unit packets, STAP-A for runs of small NAL
/// units (parameter sets, SEI, small slices: one packet instead of several), and FU-A for NAL
/// units larger than a packet. Access unit delimiters and filler are dropped, since RTP's marker
/// bit and timestamp already delimit access units and filler only pads a constant-rate channel.
/// A keyframe always carries its SPS and PPS, so a receiver that joins on it (an SFU forwarding
/// to a new subscriber after a PLI) can decode it without the SDP's sprop-parameter-sets.
public struct H264Packetizer: Sendable {
    /// Largest RTP payload, in bytes: the path MTU less IP, UDP, RTP and (with SRTP) the auth tag.
    public let maxPayloadSize: Int

    /// A limit below 3 bytes is raised to 3: an FU-A needs two header bytes and one of the NAL unit.
    public init(maxPayloadSize: Int = 1200) {
        self.maxPayloadSize = max(3, maxPayloadSize)
    }

    static let sequenceParameterSetType: UInt8 = 7
    static let pictureParameterSetType: UInt8 = 8
    static let idrSliceType: UInt8 = 5
    static let dropped: Set<UInt8> = [9, 12]  // access unit delimiter, filler data
    static let stapAType: UInt8 = 24
    static let fuAType: UInt8 = 28

    /// The payloads of one access unit, in order; the last one gets the marker bit.
    /// `parameterSets`: raw SPS and PPS NAL units (no start codes), put ahead of an IDR slice
    /// when the access unit lacks them (libx264 without `repeat-headers` keeps them in extradata).
    public func payloads(accessUnit: UnsafeRawBufferPointer, parameterSets: [[UInt8]] = []) -> [[UInt8]] {
        var nals = Self.nalUnitRanges(accessUnit).map { Array(UnsafeRawBufferPointer(rebasing: accessUnit[$0])) }
        nals.removeAll { Self.dropped.contains($0[0] & 0x1F) }
        Self.insertMissingParameterSets(parameterSets, into: &nals)
        return packetize(nals)
    }

    public func payloads(accessUnit: [UInt8], parameterSets: [[UInt8]] = []) -> [[UInt8]] {
        accessUnit.withUnsafeBytes { payloads(accessUnit: $0, parameterSets: parameterSets) }
    }

    /// The SPS and PPS NAL units (no start codes) of an Annex B buffer, such as an encoder's extradata.
    public static func parameterSets(annexB: UnsafeRawBufferPointer) -> [[UInt8]] {
        nalUnitRanges(annexB)
            .filter { [sequenceParameterSetType, pictureParameterSetType].contains(annexB[$0.lowerBound] & 0x1F) }
            .map { Array(UnsafeRawBufferPointer(rebasing: annexB[$0])) }
    }

    /// Whether the access unit holds an IDR slice.
    public static func isKeyframe(accessUnit: UnsafeRawBufferPointer) -> Bool {
        nalUnitRanges(accessUnit).contains { accessUnit[$0.lowerBound] & 0x1F == idrSliceType }
    }

    // MARK: - Parameter sets

    /// An IDR access unit without SPS or PPS gets the missing kinds from `parameterSets`, after
    /// any parameter sets it leads with (so a PPS it lacks follows the SPS it has) and before
    /// everything else (SEI may refer to the SPS).
    static func insertMissingParameterSets(_ parameterSets: [[UInt8]], into nals: inout [[UInt8]]) {
        let types = Set(nals.map { $0[0] & 0x1F })
        guard types.contains(idrSliceType) else { return }
        let missing = [sequenceParameterSetType, pictureParameterSetType].filter { !types.contains($0) }
        let inserted = missing.flatMap { type in parameterSets.filter { $0.first.map { $0 & 0x1F } == type } }
        guard !inserted.isEmpty else { return }
        let leading = nals.prefix { [sequenceParameterSetType, pictureParameterSetType].contains($0[0] & 0x1F) }.count
        nals.insert(contentsOf: inserted, at: leading)
    }

    // MARK: - Payload structures

    /// Greedy: each NAL unit joins the STAP-A being built while the aggregate still fits, so
    /// aggregation never reorders NAL units; a group of one is sent as a single NAL unit packet.
    func packetize(_ nals: [[UInt8]]) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var group: [[UInt8]] = []
        var groupSize = 1  // the STAP-A NAL header
        func flush() {
            if group.count == 1 { payloads.append(group[0]) } else if group.count > 1 { payloads.append(Self.aggregate(group)) }
            group = []; groupSize = 1
        }
        for nal in nals {
            guard nal.count <= maxPayloadSize else {
                flush()
                payloads += fragments(nal)
                continue
            }
            if groupSize + 2 + nal.count > maxPayloadSize { flush() }
            group.append(nal)
            groupSize += 2 + nal.count
        }
        flush()
        return payloads
    }

    /// STAP-A (RFC 6184 §5.7.1): F is the OR of the units' F bits and NRI their maximum; each
    /// unit follows its 16-bit size.
    static func aggregate(_ nals: [[UInt8]]) -> [UInt8] {
        let forbidden = nals.reduce(0) { $0 | $1[0] & 0x80 }
        let importance = nals.map { $0[0] & 0x60 }.max() ?? 0
        var payload: [UInt8] = [forbidden | importance | stapAType]
        payload.reserveCapacity(1 + nals.reduce(0) { $0 + 2 + $1.count })
        for nal in nals { payload += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
        return payload
    }

    /// FU-A (RFC 6184 §5.8): the NAL header becomes the FU indicator (F, NRI, type 28) and the FU
    /// header (S on the first, E on the last, the NAL type); the body is cut into pieces of
    /// `maxPayloadSize − 2` bytes, so only the last one is short.
    func fragments(_ nal: [UInt8]) -> [[UInt8]] {
        let indicator = nal[0] & 0xE0 | Self.fuAType
        let type = nal[0] & 0x1F
        let pieceSize = maxPayloadSize - 2
        let starts = stride(from: 1, to: nal.count, by: pieceSize)
        return starts.map { start in
            let end = min(start + pieceSize, nal.count)
            let header = (start == 1 ? 0x80 : 0) | (end == nal.count ? 0x40 : 0) | type
            return [indicator, header] + nal[start..<end]
        }
    }

    // MARK: - Annex B

    /// Where each NAL unit of an Annex B byte stream lies, without start codes or trailing zero
    /// bytes (the leading zero of a 4-byte start code and trailing_zero_8bits both end up there:
    /// a NAL unit itself ends in rbsp_stop_one_bit, never in a zero byte). Bytes before the first
    /// start code count as a NAL unit, so a buffer with none is taken as one bare NAL unit.
    /// Empty units are left out.
    static func nalUnitRanges(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        func close(at end: Int) {
            var end = end
            while end > start && bytes[end - 1] == 0 { end -= 1 }
            if end > start { ranges.append(start..<end) }
        }
        var index = 0
        while index + 2 < bytes.count {
            // A start code is 00 00 01; when the third byte is above 1, no start code can begin
            // at any of these three positions, so skip all three.
            if bytes[index + 2] > 1 {
                index += 3
            } else if bytes[index + 2] == 1 && bytes[index] == 0 && bytes[index + 1] == 0 {
                close(at: index)
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        close(at: bytes.count)
        return ranges
    }
}
