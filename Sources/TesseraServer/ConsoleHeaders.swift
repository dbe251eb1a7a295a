import HTTPTypes
import Hummingbird

/// The headers on every response of the console's routes, errors included. The policy allows
/// scripts and styles from this origin only (no inline script, no `eval`), images from this
/// origin and the `blob:` URLs the console makes of fetched snapshots, requests to this origin
/// only, and no framing (clickjacking a drag-to-edit page is the risk).
enum ConsoleHeaders {
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob:",
        "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static var fields: HTTPFields {
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.xContentTypeOptions] = "nosniff"
        // For browsers that predate frame-ancestors.
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // Files change with the binary: always revalidate, so an upgrade never mixes old modules with new.
        fields[.cacheControl] = "no-cache"
        return fields
    }
}
