/// SDES keying for an allocation (`a=crypto`, RFC 4568): the suite and its master key + salt as
/// the caller gave them (base64, already checked to decode to the suite's length).
///
/// The suite table is the one place that knows suite names; when the SRTP library wrapper brings
/// its own suite type, this table gives way to it.
public struct SRTPKeying: Codable, Sendable, Equatable {
    /// The `a=crypto` suite name, e.g. `AES_CM_128_HMAC_SHA1_80`.
    public var suite: String
    /// Base64 of master key + master salt.
    public var key: String

    public init(suite: String, key: String) { self.suite = suite; self.key = key }

    /// Master key + salt length per suite: a 128-bit key with a 112-bit salt for AES-CM
    /// (RFC 4568 §6.2), a 96-bit salt for AES-GCM (RFC 7714 §12).
    public static let keyAndSaltBytes: [(suite: String, bytes: Int)] = [
        ("AES_CM_128_HMAC_SHA1_80", 30),
        ("AES_CM_128_HMAC_SHA1_32", 30),
        ("AEAD_AES_128_GCM", 28),
    ]

    /// The key + salt length `suite` needs; nil for a suite Tessera does not receive.
    public static func keyAndSaltBytes(of suite: String) -> Int? {
        keyAndSaltBytes.first { $0.suite == suite }?.bytes
    }
}
