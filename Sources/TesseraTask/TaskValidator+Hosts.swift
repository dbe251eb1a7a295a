import Foundation

/// The host of a network input or output URL against the server's deny-list (SPEC §5).
extension ValidationContext {
    /// The URL's host, checked: nil with an issue at `path` when the URL has no host or the
    /// deny-list refuses it. Both the host as written and its percent-decoded form are checked,
    /// since parsers differ on which of the two they connect to.
    mutating func allowedHost(of url: String, at path: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            issues.add(path, "not a valid URL (scheme://host/...)")
            return nil
        }
        let spellings = Set([host, components.percentEncodedHost ?? host])
        for spelling in spellings.sorted() {
            var known = resolvedHosts
            let resolve = options.resolveHost
            let denial = options.deniedHosts.denial(ofHost: spelling) { name in
                if let addresses = known[name] { return addresses }
                let addresses = resolve(name)
                known[name] = .some(addresses)
                return addresses
            }
            resolvedHosts = known
            if let denial {
                issues.add(path, denial)
                return nil
            }
        }
        return host
    }
}
