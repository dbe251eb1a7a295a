/// Whether UDP ports can be bound now, and whether an address is this host's: what the service
/// asks before it hands RTP ports to a task. The sockets themselves belong to the media library
/// (`UDPPortProbe` in `TesseraMedia`), which the service side does not import: `tessera serve`
/// hands the real probe in, tests a scripted one.
public struct UDPPortChecker: Sendable {
    /// The first of `ports` that cannot be bound on `bindAddress` (nil: every interface), with
    /// the reason; nil when all are free.
    public var firstBusy: @Sendable (_ ports: [Int], _ bindAddress: String?) -> (port: Int, reason: String)?
    /// Whether an IP address literal belongs to this host (can be bound).
    public var isLocalAddress: @Sendable (_ address: String) -> Bool

    public init(firstBusy: @escaping @Sendable (_ ports: [Int], _ bindAddress: String?) -> (port: Int, reason: String)?,
                isLocalAddress: @escaping @Sendable (_ address: String) -> Bool) {
        self.firstBusy = firstBusy
        self.isLocalAddress = isLocalAddress
    }
}
