/// `CODECS` attribute values of an HLS master playlist (RFC 8216 §4.3.4.2, RFC 6381).
public enum HLSCodecs {
    /// AAC-LC, as `mp4a.40.2` (object type 2 of MPEG-4 audio).
    public static let aacLC = "mp4a.40.2"

    /// `avc1.PPCCLL` from an H.264 SPS NAL unit (no start code): its `profile_idc`, constraint
    /// flags and `level_idc` bytes in hex, e.g. `avc1.64001f` for High at level 3.1. nil for a
    /// unit that is not an SPS or is too short.
    public static func avc1(sps: [UInt8]) -> String? {
        guard sps.count >= 4, sps[0] & 0x1F == 7 else { return nil }
        return "avc1." + sps[1...3].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// `avc1.…` from the first SPS among an encoder's parameter sets (see `H264Packetizer.parameterSets`).
    public static func avc1(parameterSets: [[UInt8]]) -> String? {
        parameterSets.lazy.compactMap(avc1(sps:)).first
    }
}
