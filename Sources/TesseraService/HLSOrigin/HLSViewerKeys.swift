import Foundation
import TesseraTask

/// The viewer keys of a task's HLS outputs (`outputs[].hls.viewerKey`): the secret part of the
/// origin's URLs, which the API token holder hands to viewers. An HLS output without one gets a
/// random key when the task is accepted, written into the document, so a restarted worker,
/// another node that takes the task over, and later updates keep it. Pure but for the random bytes.
public enum HLSViewerKeys {
    /// 24 random bytes (192 bits) as 32 URL-safe base64 characters (`[A-Za-z0-9_-]`), within the
    /// 16–64 characters a given key may have.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Output URL → its viewer key, for each output of the document that names one.
    public static func keys(in document: JSONValue) -> [String: String] {
        guard case .object(let fields) = document, case .array(let outputs)? = fields["outputs"] else { return [:] }
        var keys: [String: String] = [:]
        for case .object(let output) in outputs {
            guard case .string(let url)? = output["url"], case .object(let hls)? = output["hls"],
                  case .string(let key)? = hls["viewerKey"] else { continue }
            keys[url] = key
        }
        return keys
    }

    /// The document with a key in every HLS output of `plan` that has none: the key an output of
    /// the same URL had before (`previous`, an update that restates the output), else a new one.
    public static func assigning(_ document: JSONValue, plan: ResolvedTask, previous: [String: String] = [:],
                                 generate: () -> String = generate) -> JSONValue {
        guard case .object(var fields) = document else { return document }
        assign(&fields, plan: plan, previous: previous, generate: generate)
        return .object(fields)
    }

    public static func assign(_ fields: inout [String: JSONValue], plan: ResolvedTask, previous: [String: String] = [:],
                              generate: () -> String = generate) {
        let hlsURLs = Set(plan.outputs.compactMap { output -> String? in
            if case .hls = output.kind { return output.url }
            return nil
        })
        guard !hlsURLs.isEmpty, case .array(var outputs)? = fields["outputs"] else { return }
        for index in outputs.indices {
            guard case .object(var output) = outputs[index], case .string(let url)? = output["url"], hlsURLs.contains(url) else { continue }
            var hls: [String: JSONValue] = [:]
            if case .object(let given)? = output["hls"] { hls = given }
            if case .string? = hls["viewerKey"] { continue }
            hls["viewerKey"] = .string(previous[url] ?? generate())
            output["hls"] = .object(hls)
            outputs[index] = .object(output)
        }
        fields["outputs"] = .array(outputs)
    }
}
