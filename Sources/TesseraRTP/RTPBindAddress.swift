/// Which local address an RTP input's sockets bind, from the `--rtp-bind-address` setting and
/// the address its SDP names (`c=`). One rule for the worker that binds and the server that
/// probes ports first, so both look at the same socket:
///
/// 1. a wildcard setting (`0.0.0.0`: every IPv4 interface; `::`: every interface, IPv4 too)
///    binds every socket there — the operator asked for it;
/// 2. else a medium whose `c=` address is an address of this host binds that address: the sender
///    was told to send there (an allocated input's `c=` is `--rtp-address`);
/// 3. else the setting (its default is `--rtp-address` when that is an address of this host);
///    with no setting at all (`tessera mix`, or an `--rtp-address` behind NAT), every interface.
///
/// Binding one address instead of every interface keeps other networks of the host from
/// reaching the ports at all.
public enum RTPBindAddress {
    public static let wildcards: Set<String> = ["0.0.0.0", "::"]

    /// The address to bind; nil: every interface (dual-stack).
    /// - Parameters:
    ///   - sessionAddress: the medium's `c=` address.
    ///   - setting: `--rtp-bind-address` as resolved by `tessera serve`; nil for none.
    ///   - isLocal: whether an address literal belongs to this host (can be bound).
    public static func choose(sessionAddress: String?, setting: String?, isLocal: (String) -> Bool) -> String? {
        if let setting, wildcards.contains(setting) { return setting }
        if let address = sessionAddress, isAddressLiteral(address), !wildcards.contains(address), isLocal(address) {
            return address
        }
        return setting
    }

    /// An IPv4 or IPv6 address written as one (no host name, no prefix length).
    public static func isAddressLiteral(_ text: String) -> Bool {
        !text.contains("/") && IPNetwork(text) != nil
    }
}
