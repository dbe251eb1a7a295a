/// What `tessera probe` writes on its standard output (one JSON object): the answer of a relay
/// codec check, read by the server's `CodecProbe`.
package struct ProbeAnswer: Codable, Sendable {
    /// Why the input cannot be relayed to these outputs; nil when it can.
    package var error: String?

    package init(error: String? = nil) { self.error = error }
}
