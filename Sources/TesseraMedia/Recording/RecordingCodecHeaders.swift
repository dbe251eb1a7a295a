/// The few bytes a container needs to describe a stream that arrived bare (RTP): no FFmpeg, so
/// each is tested on byte arrays.
public enum RecordingCodecHeaders {
    /// Opus's identification header (RFC 7845 §5.1), as Matroska's CodecPrivate and MP4's dOps
    /// take it: version 1, `channels`, no pre-skip (RTP carries none), 48 kHz, no gain, mapping
    /// family 0 (mono or stereo).
    public static func opusHead(channels: Int, inputSampleRate: Int = 48_000) -> [UInt8] {
        let count = UInt8(max(1, min(2, channels)))
        let rate = UInt32(inputSampleRate)
        return Array("OpusHead".utf8) + [1, count, 0, 0]
            + [UInt8(rate & 0xFF), UInt8(rate >> 8 & 0xFF), UInt8(rate >> 16 & 0xFF), UInt8(rate >> 24)]
            + [0, 0, 0]
    }

    /// The picture size of a VP8 keyframe (RFC 6386 §9.1: a 3-byte frame tag with the key bit
    /// clear, the start code 9d 01 2a, then 14-bit width and height, little-endian); nil for an
    /// interframe or a truncated frame.
    public static func vp8KeyframeSize(_ frame: [UInt8]) -> (width: Int, height: Int)? {
        guard frame.count >= 10, frame[0] & 0x01 == 0,
              frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        let width = Int(frame[6]) | Int(frame[7] & 0x3F) << 8
        let height = Int(frame[8]) | Int(frame[9] & 0x3F) << 8
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// The SPS and PPS NAL units of an H.264 access unit in Annex B (what the depacketizer hands
    /// out: a keyframe carries them), as Annex B again: the extradata Matroska and MP4 turn into
    /// their avcC (and with which they convert each packet to length-prefixed NAL units). Empty
    /// when the access unit has no SPS or no PPS.
    public static func h264ParameterSets(annexB data: [UInt8]) -> [UInt8] {
        var sequence: [UInt8] = [], pictures: [UInt8] = []
        for range in nalUnitRanges(annexB: data) {
            switch data[range.lowerBound] & 0x1F {
            case 7 where sequence.isEmpty: sequence = startCode + data[range]
            case 8: pictures += startCode + data[range]
            default: continue
            }
        }
        guard !sequence.isEmpty, !pictures.isEmpty else { return [] }
        return sequence + pictures
    }

    private static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Each NAL unit's bytes (without its start code) in an Annex B stream.
    static func nalUnitRanges(annexB data: [UInt8]) -> [Range<Int>] {
        var starts: [(code: Int, payload: Int)] = []
        var index = 0
        while index + 2 < data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1 {
                let code = index > 0 && data[index - 1] == 0 ? index - 1 : index
                starts.append((code, index + 3))
                index += 3
            } else {
                index += 1
            }
        }
        return starts.enumerated().compactMap { offset, start in
            let end = offset + 1 < starts.count ? starts[offset + 1].code : data.count
            return start.payload < end ? start.payload..<end : nil
        }
    }
}
