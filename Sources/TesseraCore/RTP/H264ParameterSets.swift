/// The SPS and PPS a keyframe needs: from the SDP, or better the latest the sender sent in band.
///
/// A decoder cannot start on an IDR slice without them. Some senders put them only in the SDP
/// (sprop-parameter-sets); some send them in band but as an access unit of their own, which the
/// keyframe gate drops. Either way the keyframe handed out should carry them.
struct H264ParameterSets {
    /// The SDP's parameter sets, Annex B.
    let fromDescription: [UInt8]
    /// The latest in-band SPS, Annex B, and the PPSs seen since (a few; senders rarely use more).
    private var sequenceParameterSet: [UInt8] = []
    private var pictureParameterSets: [[UInt8]] = []
    private static let maxPictureParameterSets = 4

    init(fromDescription nals: [[UInt8]]) {
        fromDescription = nals.filter { !$0.isEmpty }.flatMap { H264Depacketizer.startCode + $0 }
    }

    /// What to put ahead of an IDR slice whose access unit has no SPS; empty if nothing is known.
    var annexB: [UInt8] {
        guard !sequenceParameterSet.isEmpty, !pictureParameterSets.isEmpty else { return fromDescription }
        return sequenceParameterSet + pictureParameterSets.joined()
    }

    /// Keeps a whole in-band SPS or PPS (fragmented ones are not kept; senders do not fragment them).
    mutating func remember(_ nal: ArraySlice<UInt8>) {
        switch nal[nal.startIndex] & 0x1F {
        case 7:
            guard !sequenceParameterSet.dropFirst(4).elementsEqual(nal) else { return }
            sequenceParameterSet = H264Depacketizer.startCode + nal
            pictureParameterSets = []
        case 8 where !sequenceParameterSet.isEmpty:
            let annexB = H264Depacketizer.startCode + nal
            guard !pictureParameterSets.contains(annexB) else { return }
            if pictureParameterSets.count == Self.maxPictureParameterSets { pictureParameterSets.removeFirst() }
            pictureParameterSets.append(annexB)
        default:
            break
        }
    }
}
extension H264Depacketizer {
    /// NAL units of an SDP's sprop-parameter-sets (comma-separated base64); invalid entries skipped.
    ///
    /// Padding is optional, since some senders drop it; an entry that is not base64 or whose first
    /// byte is not a valid NAL header is skipped rather than failing the whole list.
    public static func parameterSets(fromSprop sprop: String) -> [[UInt8]] {
        sprop.split(separator: ",").compactMap { entry in
            guard let nal = decodeBase64(entry.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }),
                  let header = nal.first, isSingleNALHeader(header) else { return nil }
            return nal
        }
    }

    /// RFC 4648 base64, padding optional; nil on any other character or an impossible length.
    static func decodeBase64(_ text: [UInt8]) -> [UInt8]? {
        var digits = text[...]
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard text.count - digits.count <= 2, digits.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0
        for character in digits {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return bytes
    }
}
