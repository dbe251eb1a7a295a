/// Every route the server answers, to tell "no such path" (404) from "no such method here" (405)
/// and to list the API (the OpenAPI test reads it). Hummingbird's router answers both with 404.
public struct RouteTable: Sendable {
    public let routes: [RouteSignature]

    public init(_ routes: [RouteSignature]) { self.routes = routes }

    /// The methods allowed on a concrete request path (`/v1/tasks/abc`), in route order.
    public func methods(forPath requestPath: String) -> [String] {
        let components = Self.components(requestPath)
        var methods: [String] = []
        for route in routes where Self.matches(pattern: Self.components(route.path), components) {
            if !methods.contains(route.method) { methods.append(route.method) }
        }
        return methods
    }

    /// Whether the request path matches a route pattern that asks no token (`/healthz`).
    public func isOpen(path requestPath: String) -> Bool {
        let components = Self.components(requestPath)
        return routes.contains { !$0.requiresAuth && Self.matches(pattern: Self.components($0.path), components) }
    }

    static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    static func matches(pattern: [Substring], _ components: [Substring]) -> Bool {
        guard pattern.count == components.count else { return false }
        return zip(pattern, components).allSatisfy { part, component in
            (part.hasPrefix("{") && part.hasSuffix("}")) || part == component
        }
    }
}
