import Foundation

/// `rtp.allocate.srtp`: the SDES crypto suite and its master key and salt, base64 — as written,
/// and, once checked against `SRTPSuite`'s lengths, as the allocation request keeps it.
public struct SRTPSpec: Codable, Sendable, Equatable {
    public var suite: String
    public var key: String
    public init(suite: String, key: String) { self.suite = suite; self.key = key }
}
