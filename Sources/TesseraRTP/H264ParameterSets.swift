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
            guard let nal = Base64.decode(entry.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }),
                  let header = nal.first, isSingleNALHeader(header) else { return nil }
            return nal
        }
    }
}
