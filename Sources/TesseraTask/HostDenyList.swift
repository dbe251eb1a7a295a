import Foundation
import TesseraRTP

/// The hosts input and output URLs may not reach (`--deny-hosts`): address blocks and host names.
/// Empty by default: loopback and private hosts are where CDN origins and SFUs live (SPEC §5).
///
/// A name entry denies the name and every name under it (`metadata.internal` also denies
/// `a.metadata.internal`). An address block denies a URL whose host is an address in it, in any
/// spelling `getaddrinfo` reads, or a name that resolves to one. The check runs when a task is
/// validated; a DNS answer that changes between the check and FFmpeg's own lookup (rebinding) is
/// beyond it, so deny-lists that matter belong in the network as well.
public struct HostDenyList: Sendable, Equatable {
    public enum Entry: Sendable, Equatable {
        case network(IPNetwork)
        case name(String)
    }

    public let entries: [Entry]

    public init() { entries = [] }

    /// Every address, IPv4 and IPv6: what a deny-list that could not be read falls back to.
    public static let everything = HostDenyList(entries: [.network(IPNetwork("0.0.0.0/0")!), .network(IPNetwork("::/0")!)])

    private init(entries: [Entry]) { self.entries = entries }

    /// Parses entries such as `10.0.0.0/8`, `fd00::/8`, `169.254.169.254`, `metadata.internal`.
    public init(_ texts: [String]) throws(Invalid) {
        entries = try texts.map { text throws(Invalid) in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let network = IPNetwork(trimmed) { return .network(network) }
            let name = Self.normalized(trimmed)
            let labelCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789-.")
            guard !name.isEmpty, !name.contains("/"), name.unicodeScalars.allSatisfy(labelCharacters.contains),
                  !name.hasPrefix("."), !name.contains("..")
            else { throw Invalid(entry: text) }
            return .name(name)
        }
    }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var entry: String
        public var description: String {
            "\"\(entry)\" is neither an address, an address block (10.0.0.0/8, fd00::/8) nor a host name"
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    private var networks: [IPNetwork] {
        entries.compactMap { if case .network(let network) = $0 { return network } else { return nil } }
    }

    /// Why a URL naming `host` is refused, or nil when it may be used.
    /// - Parameter resolve: the addresses a name leads to (`HostResolver.addresses`), or nil
    ///   when it does not resolve. Called only when the list has address blocks.
    public func denial(ofHost rawHost: String, resolve: (String) -> [[UInt8]]?) -> String? {
        guard !entries.isEmpty else { return nil }
        let host = Self.normalized(rawHost)
        for case .name(let name) in entries where host == name || host.hasSuffix("." + name) {
            return "host \(rawHost) is on the server's deny-list"
        }
        let networks = self.networks
        guard !networks.isEmpty else { return nil }
        // Deny when the name cannot be checked: a block list that a lookup failure bypasses
        // protects nothing, and FFmpeg could resolve the name a moment later.
        guard let addresses = resolve(host) else {
            return "host \(rawHost) does not resolve, so it cannot be checked against the server's deny-list"
        }
        for address in addresses {
            if let network = networks.first(where: { $0.contains(address) }) {
                return "host \(rawHost) is in \(network), which the server's deny-list refuses"
            }
        }
        return nil
    }

    /// Lower case, without IPv6 brackets, zone (`%eth0`) or the root's trailing dot.
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let percent = host.firstIndex(of: "%"), host.contains(":") { host = String(host[..<percent]) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
