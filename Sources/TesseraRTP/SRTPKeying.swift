/// The SRTP protection profiles Tessera receives with keys given in SDP (SDES, RFC 4568); the raw
/// values are the crypto-suite names `a=crypto` and `rtp.allocate.srtp.suite` use.
///
/// | suite | master key + salt | SRTP tag | SRTCP tag |
/// | --- | --- | --- | --- |
/// | AES_CM_128_HMAC_SHA1_80 (RFC 4568 §6.2.1) | 16 + 14 | 10 | 10 |
/// | AES_CM_128_HMAC_SHA1_32 (RFC 4568 §6.2.2) | 16 + 14 | 4 | 10 |
/// | AEAD_AES_128_GCM (RFC 7714 §12) | 16 + 12 | 16 | 16 |
///
/// The _32 suite shortens only the SRTP tag: SRTCP keeps its 80-bit tag (RFC 3711 §7.5 advises
/// against short SRTCP tags; RFC 5764 §4.1.2 spells it out, and libsrtp and FFmpeg both do so).
public enum SRTPSuite: String, Sendable, Equatable, CaseIterable {
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"
    case aeadAES128GCM = "AEAD_AES_128_GCM"

    /// The suite a crypto-suite name means, in any case (names in RFC 4568's grammar are
    /// case-insensitive strings, RFC 5234 §2.3).
    public init?(name: String) {
        let upper = name.uppercased()
        guard let suite = SRTPSuite.allCases.first(where: { $0.rawValue == upper }) else { return nil }
        self = suite
    }

    /// Every suite name, comma-separated, for error messages.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// Bytes of the AES master key: 16 in every suite Tessera takes.
    public var masterKeyLength: Int { 16 }

    /// Bytes of the master salt: 14 for AES counter mode, 12 for GCM (its IV is 12 bytes).
    public var masterSaltLength: Int { self == .aeadAES128GCM ? 12 : 14 }

    /// Bytes of the base64 `inline:` value: the master key followed by the master salt.
    public var masterKeyAndSaltLength: Int { masterKeyLength + masterSaltLength }

    /// Bytes of the authentication tag after each SRTP packet's payload.
    public var rtpTagLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80: return 10
        case .aesCM128HMACSHA1_32: return 4
        case .aeadAES128GCM: return 16
        }
    }

    /// Bytes of the authentication tag of each SRTCP packet (which also carries a 4-byte
    /// E flag + SRTCP index before the tag).
    public var rtcpTagLength: Int { self == .aeadAES128GCM ? 16 : 10 }
}

/// Why a key or an `a=crypto` attribute cannot be used, as a sentence that names the part at fault
/// and does not contain the key.
public struct SRTPKeyingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// An SRTP master key and salt for one suite, checked for length; what an SRTP session is made from.
///
/// Its `description` names the suite and never the key, so the value can be logged.
public struct SRTPKeying: Sendable, Equatable, CustomStringConvertible {
    public let suite: SRTPSuite
    /// The master key followed by the master salt: `suite.masterKeyAndSaltLength` bytes.
    public let masterKeyAndSalt: [UInt8]

    public init(suite: SRTPSuite, masterKeyAndSalt: [UInt8]) throws(SRTPKeyingError) {
        guard masterKeyAndSalt.count == suite.masterKeyAndSaltLength else {
            throw SRTPKeyingError("key must be \(Self.expected(suite)), got \(masterKeyAndSalt.count)")
        }
        self.suite = suite
        self.masterKeyAndSalt = masterKeyAndSalt
    }

    /// A key given in base64 (`rtp.allocate.srtp.key`, or an `inline:` value), padding optional.
    /// Errors read "key must be 30 bytes (16 key + 14 salt) base64, got 29".
    public init(suite: SRTPSuite, base64Key: String) throws(SRTPKeyingError) {
        guard let bytes = Base64.decode(Array(base64Key.utf8)) else {
            throw SRTPKeyingError("key is not base64 (it must be \(Self.expected(suite)))")
        }
        try self.init(suite: suite, masterKeyAndSalt: bytes)
    }

    /// The key and salt in base64 with padding, as `inline:` writes it.
    public var base64Key: String { Base64.encode(masterKeyAndSalt) }

    public var description: String { "\(suite.rawValue) key (redacted)" }

    private static func expected(_ suite: SRTPSuite) -> String {
        "\(suite.masterKeyAndSaltLength) bytes (\(suite.masterKeyLength) key + \(suite.masterSaltLength) salt) base64"
    }
}
