import Foundation
import Testing
import TesseraRTP
import TesseraTask

@Suite struct HostDenyListTests {
    /// A resolver with fixed answers, so no test depends on DNS.
    static func resolver(_ answers: [String: [String]]) -> @Sendable (String) -> [[UInt8]]? {
        { host in
            if let network = IPNetwork(host) { return [network.bytes] }
            return answers[host].map { $0.map { IPNetwork($0)!.bytes } }
        }
    }

    static let list = try! HostDenyList(["10.0.0.0/8", "169.254.169.254", "fd00::/8", "metadata.internal"])
    static let dns = resolver(["cdn.example": ["203.0.113.5"], "sneaky.example": ["203.0.113.9", "10.1.2.3"],
                               "v6.example": ["fd12::1"], "notmetadata.internal": ["203.0.113.7"]])

    @Test(arguments: [
        ("10.0.0.1", true), ("10.255.255.255", true), ("11.0.0.1", false), ("169.254.169.254", true),
        ("169.254.169.253", false), ("fd00::1", true), ("[fd00::1]", true), ("fe80::1", false),
        ("::ffff:10.0.0.1", true), ("metadata.internal", true), ("METADATA.internal.", true),
        ("a.metadata.internal", true), ("notmetadata.internal", false), ("cdn.example", false),
        ("sneaky.example", true), ("v6.example", true), ("127.0.0.1", false), ("192.168.1.1", false),
    ])
    func deniesAddressesBlocksAndNames(host: String, denied: Bool) {
        let denial = Self.list.denial(ofHost: host, resolve: Self.dns)
        #expect((denial != nil) == denied, "\(host): \(denial ?? "allowed")")
    }

    @Test func aNameThatDoesNotResolveIsDeniedWhenBlocksAreListed() {
        #expect(Self.list.denial(ofHost: "nowhere.example", resolve: Self.dns)?.contains("does not resolve") == true)
        // With names only, nothing needs resolving.
        let names = try! HostDenyList(["metadata.internal"])
        #expect(names.denial(ofHost: "nowhere.example", resolve: { _ in Issue.record("resolved"); return nil }) == nil)
    }

    @Test func emptyListAllowsEverythingWithoutResolving() {
        #expect(HostDenyList().denial(ofHost: "10.0.0.1", resolve: { _ in Issue.record("resolved"); return nil }) == nil)
    }

    @Test func theSystemResolverReadsLegacyAddressForms() throws {
        // getaddrinfo, like FFmpeg, reads these as 127.0.0.1: a list denying loopback catches them all.
        let loopback = try HostDenyList(["127.0.0.0/8"])
        for host in ["127.0.0.1", "127.1", "0x7f000001", "2130706433", "0177.0.0.1"] {
            #expect(loopback.denial(ofHost: host, resolve: HostResolver.addresses(of:)) != nil, "\(host)")
        }
        #expect(loopback.denial(ofHost: "::1", resolve: HostResolver.addresses(of:)) == nil)
    }

    @Test(arguments: ["10.0.0.0/33", "fd00::/129", "bad host", "", "a..b", "http://x", "10.0.0.0/x"])
    func refusesBadEntries(entry: String) {
        #expect(throws: HostDenyList.Invalid.self) { try HostDenyList([entry]) }
    }

    @Test func everythingDeniesEveryAddress() {
        #expect(HostDenyList.everything.denial(ofHost: "192.0.2.1", resolve: Self.dns) != nil)
        #expect(HostDenyList.everything.denial(ofHost: "2001:db8::1", resolve: Self.dns) != nil)
    }

    @Test func networkMembershipByPrefix() throws {
        let block = try #require(IPNetwork("192.168.4.0/22"))
        #expect(block.contains(IPNetwork("192.168.7.255")!.bytes))
        #expect(!block.contains(IPNetwork("192.168.8.0")!.bytes))
        #expect(!block.contains(IPNetwork("::1")!.bytes), "an IPv6 address is never in an IPv4 block")
        #expect(block.description == "192.168.4.0/22")
    }
}
