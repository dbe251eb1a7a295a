import Foundation
import Testing
import TesseraRTP

@Suite struct SRTPKeyingTests {
    /// RFC 4568 §9.1's example key (30 bytes).
    static let exampleKey = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"

    @Test func suitesKnowTheirLengths() {
        #expect(SRTPSuite.allCases.map(\.masterKeyAndSaltLength) == [30, 30, 28])
        #expect(SRTPSuite.allCases.map(\.masterSaltLength) == [14, 14, 12])
        #expect(SRTPSuite.allCases.map(\.rtpTagLength) == [10, 4, 16])
        #expect(SRTPSuite.allCases.map(\.rtcpTagLength) == [10, 10, 16])
        #expect(SRTPSuite(name: "aes_cm_128_hmac_sha1_32") == .aesCM128HMACSHA1_32)
        #expect(SRTPSuite(name: "AEAD_AES_128_GCM") == .aeadAES128GCM)
        #expect(SRTPSuite(name: "F8_128_HMAC_SHA1_80") == nil)
    }

    @Test func aBase64KeyIsCheckedForItsSuitesLength() throws {
        let keying = try SRTPKeying(suite: .aesCM128HMACSHA1_80, base64Key: Self.exampleKey)
        #expect(keying.masterKeyAndSalt.count == 30 && keying.base64Key == Self.exampleKey)
        #expect(throws: SRTPKeyingError("key must be 30 bytes (16 key + 14 salt) base64, got 29")) {
            try SRTPKeying(suite: .aesCM128HMACSHA1_80, base64Key: Data(count: 29).base64EncodedString())
        }
        #expect(throws: SRTPKeyingError("key must be 28 bytes (16 key + 12 salt) base64, got 30")) {
            try SRTPKeying(suite: .aeadAES128GCM, base64Key: Self.exampleKey)
        }
        #expect(throws: SRTPKeyingError("key is not base64 (it must be 30 bytes (16 key + 14 salt) base64)")) {
            try SRTPKeying(suite: .aesCM128HMACSHA1_32, base64Key: "not a key!")
        }
        #expect(throws: SRTPKeyingError("key must be 28 bytes (16 key + 12 salt) base64, got 0")) {
            try SRTPKeying(suite: .aeadAES128GCM, masterKeyAndSalt: [])
        }
    }

    /// Writing agrees with Foundation's base64 (padding included), and reading takes it back
    /// with or without the padding.
    @Test(arguments: SRTPSuite.allCases)
    func base64RoundTrips(suite: SRTPSuite) throws {
        let bytes = (0..<suite.masterKeyAndSaltLength).map { _ in UInt8.random(in: 0...255) }
        let keying = try SRTPKeying(suite: suite, masterKeyAndSalt: bytes)
        #expect(keying.base64Key == Data(bytes).base64EncodedString())
        var unpadded = keying.base64Key
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        #expect(try SRTPKeying(suite: suite, base64Key: unpadded) == keying)
    }

    @Test func theDescriptionHidesTheKey() throws {
        let keying = try SRTPKeying(suite: .aesCM128HMACSHA1_80, base64Key: Self.exampleKey)
        #expect("\(keying)" == "AES_CM_128_HMAC_SHA1_80 key (redacted)")
    }
}

@Suite struct SRTPCryptoAttributeTests {
    static let key = SRTPKeyingTests.exampleKey

    @Test func readsAndWritesAnAttribute() throws {
        let attribute = try SRTPCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^20\r\n")
        #expect(attribute.tag == 1 && attribute.keying.suite == .aesCM128HMACSHA1_80)
        #expect(attribute.keying.base64Key == Self.key && attribute.lifetimePackets == 1 << 20)
        #expect(attribute.line == "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^20")
        #expect(try SRTPCryptoAttribute(parsing: attribute.value) == attribute)
    }

    @Test func writesWhatItIsGiven() throws {
        let keying = try SRTPKeying(suite: .aeadAES128GCM, masterKeyAndSalt: [UInt8](repeating: 0xFF, count: 28))
        let attribute = SRTPCryptoAttribute(tag: 2, keying: keying, lifetimePackets: 1000, windowSizeHint: 256)
        #expect(attribute.line == "a=crypto:2 AEAD_AES_128_GCM inline://///////////////////////////////////w==|1000 WSH=256")
        #expect(try SRTPCryptoAttribute(parsing: attribute.line) == attribute)
        #expect(SRTPCryptoAttribute(keying: keying).value == "1 AEAD_AES_128_GCM inline:\(keying.base64Key)")
    }

    @Test func acceptsWhatItCanHonour() throws {
        let attribute = try SRTPCryptoAttribute(
            parsing: "12 aes_cm_128_hmac_sha1_32 INLINE:\(Self.key)|1048576 KDR=0 WSH=128 -FUTURE_PARAM=1")
        #expect(attribute.tag == 12 && attribute.keying.suite == .aesCM128HMACSHA1_32)
        #expect(attribute.lifetimePackets == 1_048_576 && attribute.windowSizeHint == 128)
    }

    static let refusals: [(text: String, reason: String)] = [
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^20|1:4",
         "MKI (1:4) is not supported: offer the key without a master key identifier"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|1:32",
         "MKI (1:32) is not supported: offer the key without a master key identifier"),
        ("1 F8_128_HMAC_SHA1_80 inline:\(key)",
         "crypto suite \"F8_128_HMAC_SHA1_80\" is not supported "
         + "(use one of AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32, AEAD_AES_128_GCM)"),
        ("1 AEAD_AES_128_GCM inline:\(key)", "key must be 28 bytes (16 key + 12 salt) base64, got 30"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key);inline:\(key)",
         "more than one key in one a=crypto attribute (;) is not supported: give one inline: key"),
        ("1 AES_CM_128_HMAC_SHA1_80 uri:https://example.com/key",
         "key method \"uri\" is not supported: use inline:<base64 key>"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^x", "key lifetime \"2^x\" is not a number of packets (n or 2^n)"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key)|2^20|2^30",
         "key lifetime \"2^30\" is not a number of packets (n or 2^n)"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key) KDR=23",
         "session parameter KDR=23 (key derivation every 2^n packets) is not supported"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key) UNENCRYPTED_SRTP",
         "session parameter UNENCRYPTED_SRTP is not supported: Tessera receives only encrypted, authenticated SRTP and SRTCP"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key) FEC_ORDER=FEC_SRTP", "session parameter FEC_ORDER=FEC_SRTP is not supported"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key) WSH=10",
         "session parameter WSH=10 is not a replay window of at least 64 packets"),
        ("1 AES_CM_128_HMAC_SHA1_80 inline:\(key) =", "session parameter = is not supported"),
        ("x AES_CM_128_HMAC_SHA1_80 inline:\(key)", "a=crypto tag \"x\" is not a number of 1 to 9 digits"),
        ("1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(key)",
         "a=crypto tag \"1234567890\" is not a number of 1 to 9 digits"),
        ("1 AES_CM_128_HMAC_SHA1_80", "a=crypto needs a tag, a suite and inline:<key> (got \"1 AES_CM_128_HMAC_SHA1_80\")"),
        ("1 inline:\(key)", "a=crypto needs a tag, a suite and inline:<key> (got \"1 inline:…\")"),
        ("1 AES_CM_128_HMAC_SHA1_80 \(key)", "the key must be given as inline:<base64 key>"),
        ("1 inline:\(key) AES_CM_128_HMAC_SHA1_80", "crypto suite \"inline:…\" is not supported (use one of \(SRTPSuite.names))"),
        ("", "a=crypto needs a tag, a suite and inline:<key> (got \"\")"),
    ]

    @Test(arguments: refusals)
    func refusesWhatItCannotHonour(text: String, reason: String) {
        #expect(throws: SRTPKeyingError(reason)) { try SRTPCryptoAttribute(parsing: text) }
    }

    @Test func errorsNeverShowTheKey() {
        for (text, _) in Self.refusals {
            do {
                _ = try SRTPCryptoAttribute(parsing: text)
            } catch {
                #expect(!error.description.contains(Self.key))
            }
        }
    }

    @Test func takesTheFirstUsableOfSeveral() throws {
        let chosen = try SRTPCryptoAttribute.firstSupported([
            "1 AES_256_CM_HMAC_SHA1_80 inline:\(Self.key)",
            "2 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)|2^20|1:4",
            "3 AES_CM_128_HMAC_SHA1_32 inline:\(Self.key)",
            "4 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key)",
        ])
        #expect(chosen.tag == 3 && chosen.keying.suite == .aesCM128HMACSHA1_32)
        #expect(throws: SRTPKeyingError("no a=crypto attribute")) { try SRTPCryptoAttribute.firstSupported([]) }
        #expect(throws: SRTPKeyingError("no usable a=crypto attribute: crypto suite \"AES_256_CM_HMAC_SHA1_80\" is not "
                                        + "supported (use one of \(SRTPSuite.names)); key must be 30 bytes (16 key + 14 salt) "
                                        + "base64, got 3")) {
            try SRTPCryptoAttribute.firstSupported(["1 AES_256_CM_HMAC_SHA1_80 inline:\(Self.key)",
                                                     "2 AES_CM_128_HMAC_SHA1_80 inline:AAAA"])
        }
    }
}
