/// One RTP packet (RFC 3550 §5.1) read from a datagram, header checked field by field.
///
/// Parsing never trusts a length it reads: the CSRC count, the header extension's length and the
/// padding count must all fit inside the datagram, or the packet is refused with the reason, so a
/// hostile or corrupt datagram is counted and dropped rather than read past its end.
public struct RTPPacket: Sendable, Equatable {
    public var payloadType: UInt8
    public var marker: Bool
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// The payload with header, CSRCs, extension and padding removed.
    public var payload: [UInt8]
    /// The header extension, when the X bit is set (e.g. video orientation, RFC 8285 elements).
    public var headerExtension: RTPHeaderExtension?

    public init(payloadType: UInt8, marker: Bool, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, payload: [UInt8],
                headerExtension: RTPHeaderExtension? = nil) {
        self.payloadType = payloadType; self.marker = marker; self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp; self.ssrc = ssrc; self.payload = payload; self.headerExtension = headerExtension
    }

    /// Why a datagram is not an RTP packet Tessera can use.
    public enum ParseError: String, Error, Sendable, CaseIterable {
        case tooShort = "shorter than an RTP header"
        case badVersion = "RTP version is not 2"
        case badCSRCCount = "CSRC list runs past the end"
        case badExtension = "header extension runs past the end"
        case badPadding = "padding count is zero or longer than the payload"
        case rtcp = "an RTCP packet"
        case emptyPayload = "no payload"
    }

    /// Whether a datagram on an RTP port is RTCP (RFC 5761 §4: payload types 64–95 with the marker
    /// bit are RTCP's 192–223), as with rtcp-mux.
    public static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && (192...223).contains(bytes[1])
    }

    public static func parse(_ bytes: [UInt8]) -> Result<RTPPacket, ParseError> {
        bytes.withUnsafeBytes { parse($0) }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<RTPPacket, ParseError> {
        guard bytes.count >= 12 else { return .failure(.tooShort) }
        guard bytes[0] >> 6 == 2 else { return .failure(.badVersion) }
        if isRTCP(bytes) { return .failure(.rtcp) }
        let hasPadding = bytes[0] & 0x20 != 0
        let hasExtension = bytes[0] & 0x10 != 0
        let csrcCount = Int(bytes[0] & 0x0F)
        var offset = 12 + 4 * csrcCount
        guard offset <= bytes.count else { return .failure(.badCSRCCount) }
        var headerExtension: RTPHeaderExtension?
        if hasExtension {
            guard offset + 4 <= bytes.count else { return .failure(.badExtension) }
            let profile = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let words = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let dataStart = offset + 4
            offset = dataStart + 4 * words
            guard offset <= bytes.count else { return .failure(.badExtension) }
            headerExtension = RTPHeaderExtension(profile: profile, data: Array(bytes[dataStart..<offset]))
        }
        var end = bytes.count
        if hasPadding {
            let padding = Int(bytes[bytes.count - 1])
            guard padding > 0, offset + padding <= bytes.count else { return .failure(.badPadding) }
            end -= padding
        }
        guard end > offset else { return .failure(.emptyPayload) }
        return .success(RTPPacket(
            payloadType: bytes[1] & 0x7F,
            marker: bytes[1] & 0x80 != 0,
            sequenceNumber: UInt16(bytes[2]) << 8 | UInt16(bytes[3]),
            timestamp: UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7]),
            ssrc: UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11]),
            payload: Array(bytes[offset..<end]),
            headerExtension: headerExtension))
    }

    /// The datagram for this packet (version 2, no padding or CSRCs; the header extension if any,
    /// zero-padded to whole words): for tests and tools.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = [headerExtension == nil ? 0x80 : 0x90, (marker ? 0x80 : 0) | (payloadType & 0x7F),
                              UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF)]
        for value in [timestamp, ssrc] {
            bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        if let headerExtension {
            var data = headerExtension.data
            while data.count % 4 != 0 { data.append(0) }
            let words = data.count / 4
            bytes += [UInt8(headerExtension.profile >> 8), UInt8(headerExtension.profile & 0xFF),
                      UInt8(words >> 8 & 0xFF), UInt8(words & 0xFF)] + data
        }
        return bytes + payload
    }
}
