extension RTPPacket {
    /// Why a datagram on an RTP port cannot be an RTP packet at all, judged from its fixed header
    /// alone (length, version, an RTCP packet type, a CSRC list or header extension running past
    /// the end); nil when its header is whole.
    ///
    /// Checked before the datagram's sender is looked at, so that a datagram which is not RTP is
    /// refused as `malformed` whoever sent it and is counted once: it neither latches a sender nor
    /// counts as a refused source. Only the header, which SRTP leaves in the clear: the padding
    /// and the payload are judged after SRTP is removed, and only for an admitted sender's
    /// packets (a retransmission stream's padding-only probes are not errors).
    public static func headerProblem(_ bytes: UnsafeRawBufferPointer) -> ParseError? {
        guard bytes.count >= 12 else { return .tooShort }
        guard bytes[0] >> 6 == 2 else { return .badVersion }
        if isRTCP(bytes) { return .rtcp }
        var offset = 12 + 4 * Int(bytes[0] & 0x0F)
        guard offset <= bytes.count else { return .badCSRCCount }
        if bytes[0] & 0x10 != 0 {
            guard offset + 4 <= bytes.count else { return .badExtension }
            offset += 4 + 4 * (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
            guard offset <= bytes.count else { return .badExtension }
        }
        return nil
    }

    public static func headerProblem(_ bytes: [UInt8]) -> ParseError? {
        bytes.withUnsafeBytes { headerProblem($0) }
    }
}
