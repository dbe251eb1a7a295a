/// One SDP `a=crypto` attribute (SDES, RFC 4568 §9.1), reduced to what Tessera can honour:
///
///     a=crypto:<tag> <suite> inline:<base64 key + salt>[|<lifetime>][|<MKI>:<length>] [<session params>]
///
/// Refused with a sentence naming the part: a suite other than `SRTPSuite`'s, a key method other
/// than `inline`, more than one key (`;`), an MKI (every packet would carry a key index this
/// receiver does not read), and the session parameters that change the packet format or the
/// keys (`KDR` ≠ 0, `UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP`, `UNAUTHENTICATED_SRTP`, `FEC_ORDER`,
/// `FEC_KEY`, and any unknown one not marked optional with a leading `-`, §6.3). Accepted: a
/// lifetime (kept, and written back), `KDR=0`, and `WSH` (the sender's replay-window hint).
public struct SRTPCryptoAttribute: Sendable, Equatable {
    /// The offer's identifier of this attribute, echoed in an answer (1 to 9 digits).
    public var tag: Int
    public var keying: SRTPKeying
    /// The key's lifetime in packets (`|2^31` or `|2147483648`), if the attribute gives one.
    public var lifetimePackets: UInt64?
    /// `WSH=n`: the sender's hint of the replay window, in packets (at least 64, §6.3.6).
    public var windowSizeHint: Int?

    public init(tag: Int = 1, keying: SRTPKeying, lifetimePackets: UInt64? = nil, windowSizeHint: Int? = nil) {
        self.tag = tag; self.keying = keying
        self.lifetimePackets = lifetimePackets; self.windowSizeHint = windowSizeHint
    }

    /// The attribute's value (`1 AES_CM_128_HMAC_SHA1_80 inline:…`), with or without the leading
    /// `a=crypto:`.
    public init(parsing text: String) throws(SRTPKeyingError) {
        var value = Substring(text)
        if value.lowercased().hasPrefix("a=crypto:") { value = value.dropFirst("a=crypto:".count) }
        let fields = value.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 3 else {
            throw SRTPKeyingError("a=crypto needs a tag, a suite and inline:<key> (got \"\(Self.redacted(fields))\")")
        }
        guard fields[0].count <= 9, fields[0].allSatisfy(\.isASCIIDigit), let tag = Int(fields[0]) else {
            throw SRTPKeyingError("a=crypto tag \"\(Self.shown(fields[0]))\" is not a number of 1 to 9 digits")
        }
        guard let suite = SRTPSuite(name: String(fields[1])) else {
            throw SRTPKeyingError("crypto suite \"\(Self.shown(fields[1]))\" is not supported "
                                  + "(use one of \(SRTPSuite.names))")
        }
        self.tag = tag
        (keying, lifetimePackets) = try Self.keyParameters(fields[2], suite: suite)
        windowSizeHint = try Self.windowSizeHint(sessionParameters: fields.dropFirst(3))
    }

    /// The value after `a=crypto:`, e.g. `1 AES_CM_128_HMAC_SHA1_80 inline:<key>|2^31 WSH=128`.
    public var value: String {
        var text = "\(tag) \(keying.suite.rawValue) inline:\(keying.base64Key)"
        if let lifetimePackets { text += "|\(Self.lifetimeText(lifetimePackets))" }
        if let windowSizeHint { text += " WSH=\(windowSizeHint)" }
        return text
    }

    /// The SDP line without its line break: `a=crypto:` + `value`.
    public var line: String { "a=crypto:" + value }

    /// The first of a media section's `a=crypto` values (in the offerer's order of preference)
    /// that Tessera can honour; when none can, the error gives each one's reason.
    public static func firstSupported(_ values: [String]) throws(SRTPKeyingError) -> SRTPCryptoAttribute {
        var reasons: [String] = []
        for value in values {
            do {
                return try SRTPCryptoAttribute(parsing: value)
            } catch {
                reasons.append(error.description)
            }
        }
        throw SRTPKeyingError(reasons.isEmpty ? "no a=crypto attribute"
                              : "no usable a=crypto attribute: " + reasons.joined(separator: "; "))
    }

    // MARK: - Parts

    /// `inline:<key>[|lifetime][|mki:length]`: the keying and the lifetime.
    private static func keyParameters(_ field: Substring,
                                      suite: SRTPSuite) throws(SRTPKeyingError) -> (SRTPKeying, UInt64?) {
        guard !field.contains(";") else {
            throw SRTPKeyingError("more than one key in one a=crypto attribute (;) is not supported: give one inline: key")
        }
        guard let colon = field.firstIndex(of: ":") else {
            throw SRTPKeyingError("the key must be given as inline:<base64 key>")
        }
        guard field[..<colon].lowercased() == "inline" else {
            throw SRTPKeyingError("key method \"\(field[..<colon])\" is not supported: use inline:<base64 key>")
        }
        let parts = field[field.index(after: colon)...].split(separator: "|", omittingEmptySubsequences: false)
        let keying = try SRTPKeying(suite: suite, base64Key: String(parts[0]))
        var lifetime: UInt64?
        for part in parts.dropFirst() {
            if part.contains(":") {
                throw SRTPKeyingError("MKI (\(part)) is not supported: offer the key without a master key identifier")
            }
            guard lifetime == nil, let packets = parseLifetime(part) else {
                throw SRTPKeyingError("key lifetime \"\(part)\" is not a number of packets (n or 2^n)")
            }
            lifetime = packets
        }
        return (keying, lifetime)
    }

    /// `n` or `2^n` packets, up to 2⁶³.
    private static func parseLifetime(_ text: Substring) -> UInt64? {
        if text.hasPrefix("2^") {
            guard let power = UInt64(text.dropFirst(2)), power < 64 else { return nil }
            return 1 << power
        }
        return text.allSatisfy(\.isASCIIDigit) ? UInt64(text) : nil
    }

    /// A lifetime as written back: `2^n` for a power of two, else the number.
    private static func lifetimeText(_ packets: UInt64) -> String {
        packets > 1 && packets.nonzeroBitCount == 1 ? "2^\(packets.trailingZeroBitCount)" : "\(packets)"
    }

    /// Walks the session parameters (§6.3): `WSH=n` is kept, `KDR=0` and unknown ones marked
    /// optional (`-`) pass, everything else is refused.
    private static func windowSizeHint(sessionParameters: ArraySlice<Substring>) throws(SRTPKeyingError) -> Int? {
        var hint: Int?
        for parameter in sessionParameters {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].uppercased(), argument = parts.count > 1 ? parts[1] : ""
            switch name {
            case "WSH":
                guard let packets = Int(argument), packets >= 64 else {
                    throw SRTPKeyingError("session parameter \(parameter) is not a replay window of at least 64 packets")
                }
                hint = packets
            case "KDR" where argument == "0":
                continue
            case "KDR":
                throw SRTPKeyingError("session parameter \(parameter) (key derivation every 2^n packets) is not supported")
            case "UNENCRYPTED_SRTP", "UNENCRYPTED_SRTCP", "UNAUTHENTICATED_SRTP":
                throw SRTPKeyingError("session parameter \(parameter) is not supported: Tessera receives only encrypted, "
                                      + "authenticated SRTP and SRTCP")
            case _ where name.hasPrefix("-"):
                continue
            default:
                throw SRTPKeyingError("session parameter \(parameter) is not supported")
            }
        }
        return hint
    }

    /// A field for an error message, with an `inline:` key blanked out.
    private static func shown(_ field: Substring) -> String {
        field.lowercased().hasPrefix("inline:") ? "inline:…" : String(field)
    }

    /// The fields of a malformed attribute, keys blanked out.
    private static func redacted(_ fields: [Substring]) -> String { fields.map(shown).joined(separator: " ") }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
