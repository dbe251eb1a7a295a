import Testing
import TesseraRTP

/// The rule of `--rtp-bind-address` (see `RTPBindAddress`), with this host's addresses faked.
@Suite struct RTPBindAddressTests {
    static let local: Set<String> = ["127.0.0.1", "10.0.0.5", "::1"]

    @Test(arguments: [
        // c= address, setting, bound (nil: every interface)
        ("10.0.0.5", nil, "10.0.0.5"),            // an allocated input: --rtp-address, local
        ("10.0.0.5", "127.0.0.1", "10.0.0.5"),    // the sender was told 10.0.0.5: bind where it sends
        ("203.0.113.9", "10.0.0.5", "10.0.0.5"),  // behind NAT: the setting
        ("203.0.113.9", nil, nil),                // behind NAT without a setting: every interface
        ("sfu.example", "10.0.0.5", "10.0.0.5"),  // a host name is never taken as local
        ("0.0.0.0", "10.0.0.5", "10.0.0.5"),      // a wildcard c= names no address
        ("10.0.0.5", "0.0.0.0", "0.0.0.0"),       // a wildcard setting: every socket, as asked
        ("::1", "::", "::"),
        ("::1", nil, "::1"),
        (nil, nil, nil),
    ] as [(String?, String?, String?)])
    func chooses(sessionAddress: String?, setting: String?, bound: String?) {
        #expect(RTPBindAddress.choose(sessionAddress: sessionAddress, setting: setting, isLocal: Self.local.contains) == bound)
    }

    @Test func literals() {
        #expect(RTPBindAddress.isAddressLiteral("10.0.0.5") && RTPBindAddress.isAddressLiteral("fe80::1"))
        #expect(!RTPBindAddress.isAddressLiteral("10.0.0.0/8") && !RTPBindAddress.isAddressLiteral("localhost"))
    }
}
