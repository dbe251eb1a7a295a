import Foundation

/// `postgres://USER[:PASSWORD]@HOST:PORT/DB` taken apart by hand rather than with `URLComponents`:
/// every error must say which part is wrong without ever repeating the password, and
/// percent-decoding must be exact for passwords full of reserved characters.
public struct PostgresURL: Sendable, Equatable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String

    static let expected = "expected postgres://USER[:PASSWORD]@HOST:PORT/DB"

    public init(user: String, password: String?, host: String, port: Int, database: String) {
        self.user = user; self.password = password; self.host = host; self.port = port; self.database = database
    }

    public init(parsing url: String) throws {
        func fail(_ problem: String) -> TaskStoreError {
            TaskStoreError("store: \(problem) (\(Self.expected))")
        }
        guard let schemeEnd = url.range(of: "://") else { throw fail("the URL has no scheme") }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw TaskStoreError("store: \(Self.expected), got scheme \"\(scheme)\"")
        }
        var rest = url[schemeEnd.upperBound...]
        if let query = rest.firstIndex(of: "?") {
            // TLS is off (loopback / cluster-internal network); `sslmode=disable` says just that.
            let parameters = rest[rest.index(after: query)...].split(separator: "&")
            for parameter in parameters where parameter.lowercased() != "sslmode=disable" {
                let name = parameter.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                throw fail("unsupported URL parameter \"\(name)\" (only sslmode=disable)")
            }
            rest = rest[..<query]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw fail("the URL names no database") }
        let authority = rest[..<slash]
        let databasePart = rest[rest.index(after: slash)...]
        // The last "@": a password may hold an unencoded "@", a host never does.
        guard let at = authority.lastIndex(of: "@") else { throw fail("the URL names no user") }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]

        let rawUser: Substring
        let rawPassword: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            rawPassword = userInfo[userInfo.index(after: colon)...]
        } else {
            rawUser = userInfo
            rawPassword = nil
        }
        guard let user = rawUser.removingPercentEncoding, !user.isEmpty else {
            throw fail("the user is empty or badly percent-encoded")
        }
        var password: String?
        if let rawPassword {
            guard let decoded = rawPassword.removingPercentEncoding else {
                throw fail("the password is badly percent-encoded")
            }
            password = decoded.isEmpty ? nil : decoded
        }

        var host: Substring
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            // IPv6 literal: [::1]:5432
            guard let close = hostPort.firstIndex(of: "]") else { throw fail("unclosed \"[\" in the host") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = hostPort
        }
        guard !host.isEmpty else { throw fail("the host is empty") }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw fail("the port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = value
        }
        guard let database = databasePart.removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw fail("the database name is empty or invalid")
        }
        self.init(user: user, password: password, host: String(host), port: port, database: database)
    }
}
