import TesseraServer
import TesseraService
import Testing

/// `--rtp-bind-address` (`TESSERA_RTP_BIND_ADDRESS`, `rtpBindAddress`), with this host's
/// addresses faked so the rule, not the machine, is under test.
@Suite struct RTPBindAddressSettingTests {
    static let local: Set<String> = ["127.0.0.1", "10.0.0.5", "::1"]

    static func settings(_ flags: [ServeSetting: String] = [:], environment: [String: String] = [:]) throws -> ServeSettings {
        try ServeSettings(flags: .init(flags), environment: environment, workingDirectory: "/srv",
                          isLocalAddress: { local.contains($0) })
    }

    @Test func defaultsToTheRTPAddressWhenItIsThisHosts() throws {
        #expect(try Self.settings().rtpBindAddress == "127.0.0.1")
        #expect(try Self.settings([.rtpAddress: "10.0.0.5"]).rtpBindAddress == "10.0.0.5")
        #expect(try Self.settings([.host: "::1"]).rtpBindAddress == "::1")
    }

    /// Behind NAT the announced address is another machine's: nothing specific to bind.
    @Test func noDefaultBehindNAT() throws {
        #expect(try Self.settings([.rtpAddress: "203.0.113.9"]).rtpBindAddress == nil)
        #expect(try Self.settings([.rtpAddress: "sfu-facing.example"]).rtpBindAddress == nil)
    }

    @Test func anExplicitAddressOrWildcard() throws {
        #expect(try Self.settings([.rtpAddress: "203.0.113.9", .rtpBindAddress: "10.0.0.5"]).rtpBindAddress == "10.0.0.5")
        #expect(try Self.settings(environment: ["TESSERA_RTP_BIND_ADDRESS": "0.0.0.0"]).rtpBindAddress == "0.0.0.0")
        #expect(try Self.settings([.rtpBindAddress: "[::]"]).rtpBindAddress == "::")
        let registry = try Self.settings([.rtpBindAddress: "::1"]).registryConfiguration(workerExecutable: "/bin/tessera", udpPorts: .unchecked)
        #expect(registry.rtpBindAddress == "::1")
    }

    @Test(arguments: [
        ("192.0.2.1", "--rtp-bind-address", "is not an address of this host"),
        ("localhost", "--rtp-bind-address", "expected an IPv4 or IPv6 address"),
        ("10.0.0.0/8", "--rtp-bind-address", "expected an IPv4 or IPv6 address"),
    ])
    func refusesWhatCannotBeBound(value: String, names: String, message: String) {
        do {
            _ = try Self.settings([.rtpBindAddress: value])
            Issue.record("\(value) was taken")
        } catch {
            let text = "\(error)"
            #expect(text.contains(names) && text.contains(message), "\(text)")
        }
    }
}
