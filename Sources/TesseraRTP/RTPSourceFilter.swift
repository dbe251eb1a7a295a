/// `inputs[].rtp.source`: the only sender an RTP input takes packets from — one address or a
/// CIDR block, optionally one port. Written `10.0.0.7`, `10.0.0.0/24`, `10.0.0.7:5004`,
/// `2001:db8::/32`, `[::1]:5004` or `[2001:db8::/32]:5004` (an IPv6 address with a port is
/// bracketed, as in a URL).
///
/// Pure: the receive loop hands it the sender's address bytes as the socket gave them.
public struct RTPSourceFilter: Sendable, Equatable, Codable, CustomStringConvertible {
    public let network: IPNetwork
    /// nil: any port.
    public let port: UInt16?
    /// As the caller wrote it (what `description` and the plan carry).
    public let text: String

    /// Why a text is not a source, in one sentence.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static let expectedForm = "an IPv4 or IPv6 address or CIDR block, optionally with a port "
        + "(10.0.0.7, 10.0.0.0/24, 10.0.0.7:5004, [::1]:5004)"

    public init(_ text: String) throws(Invalid) {
        var network = text
        var portText: String?
        if text.hasPrefix("[") {
            // [v6], [v6]:port, [v6/len] or [v6/len]:port.
            guard let close = text.firstIndex(of: "]") else { throw Invalid(description: "\"\(text)\" has no closing ]") }
            network = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw Invalid(description: "expected :port after ] in \"\(text)\"") }
                portText = String(rest.dropFirst())
            }
            guard network.contains(":") else { throw Invalid(description: "brackets are for IPv6 addresses; write \(network) without them") }
        } else if text.filter({ $0 == ":" }).count == 1 {
            // One colon can only be IPv4 with a port; IPv6 always has more.
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            network = String(parts[0])
            portText = String(parts[1])
        }
        if let portText {
            guard let port = UInt16(portText), port > 0 else {
                throw Invalid(description: "port \"\(portText)\" must be 1-65535")
            }
            self.port = port
        } else {
            self.port = nil
        }
        guard let parsed = IPNetwork(network) else { throw Invalid(description: "expected \(Self.expectedForm), got \"\(text)\"") }
        self.network = Self.unmapped(parsed)
        self.text = text
    }

    /// Whether a packet from `address` (4 or 16 bytes, network order) and `port` is taken. An
    /// IPv4-mapped IPv6 address (`::ffff:10.0.0.7`, what a dual-stack socket reports for IPv4
    /// senders) is matched as the IPv4 address it carries.
    public func admits(address: [UInt8], port: UInt16) -> Bool {
        if let expected = self.port, expected != port { return false }
        return network.contains(address)
    }

    public var description: String { text }

    /// `::ffff:a.b.c.d/len` (len ≥ 96) is the IPv4 block it maps, so it compares with IPv4
    /// senders as `IPNetwork.contains` sees them (unmapped).
    private static func unmapped(_ network: IPNetwork) -> IPNetwork {
        let bytes = IPNetwork.unmapped(network.bytes)
        guard bytes.count == 4, network.bytes.count == 16, network.prefixLength >= 96,
              let v4 = IPNetwork(bytes.map(String.init).joined(separator: ".") + "/\(network.prefixLength - 96)")
        else { return network }
        return v4
    }

    // Coded as the text, so the worker reads the same filter the caller wrote.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(text)
    }
}
