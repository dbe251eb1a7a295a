/// `GET /openapi.yaml`: the API of SPEC §3 as an OpenAPI 3.0 document, written by hand. A test
/// checks that every route of the router is in it. The schemas follow the validator's rules
/// (`TaskValidator`), with the default limits (`--max-*` flags may lower or raise them).
enum OpenAPIDocument {
    /// The document as this server answers: the bearer requirement only when a token is set, so
    /// a client (or a schema-driven fuzzer) reads what the server really does.
    static func yaml(requiresToken: Bool) -> String {
        header + (requiresToken ? security : "") + paths + schemas + parameters + responses
    }
}

extension OpenAPIDocument {
    static let header = #"""
openapi: 3.0.3
info:
  title: Tessera
  version: "1.0.0"
  description: >-
    Server-side stream mixer and CDN relay. Start, update and stop live mixing tasks that
    composite several inputs into one layout, mix their audio, encode once and publish to RTMP
    CDNs or files. Every error answers {"error": {"code", "message", "path"?, "issues"?}}.
servers:
  - url: /
tags:
  - name: tasks
  - name: operations

"""#
}

extension OpenAPIDocument {
    static let security = #"""
security:
  - bearerAuth: []

"""#
}
