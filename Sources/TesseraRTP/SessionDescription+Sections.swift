/// One `a=rtpmap` entry: what a dynamic payload type means.
struct SDPRTPMap: Equatable {
    var encodingName: String
    var clockRate: Int
    var channels: Int?
}

/// One `a=fmtp` entry, with its line so a refusal can point at it.
struct SDPFormatParameters: Equatable {
    var parameters: [String: String]
    var line: Int
}

/// One m= section as written, before Tessera decides whether it can use it.
struct SDPMediaSection {
    var media: String
    var line: Int
    var port: Int
    var transport: String
    var formats: [String]
    var rtpmaps: [UInt8: SDPRTPMap] = [:]
    var formatParameters: [UInt8: SDPFormatParameters] = [:]
    var rtcpPort: Int?
    var rtcpMux = false
    var address: String?
    /// `a=extmap` header extensions: lower-cased URI → id.
    var extensions: [String: UInt8] = [:]
    /// `a=rtcp-fb` per payload type ("*" for every one): lower-cased feedback types, as written
    /// (`nack`, `nack pli`, `ccm fir`, ...).
    var feedback: [String: Set<String>] = [:]
    /// `a=crypto` (RFC 4568) values after `crypto:`, in order, with their lines.
    var crypto: [(value: String, line: Int)] = []

    /// Other media (application, text, message) are skipped whole, syntax included.
    var isAudioOrVideo: Bool { media == "audio" || media == "video" }
}

/// The lines of an SDP grouped into the session part and its m= sections.
struct SDPSectionReader {
    var sessionAddress: String?
    var sections: [SDPMediaSection] = []
    /// Session-level `a=extmap` lines (RFC 8285 §8 allows them there), which every section inherits.
    var sessionExtensions: [String: UInt8] = [:]

    static func read(_ text: String) throws(SessionDescription.Invalid) -> SDPSectionReader {
        var reader = SDPSectionReader()
        // Swift reads "\r\n" as one Character, so one newline test splits both line endings.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            var line = raw
            while line.last?.isWhitespace == true { line.removeLast() }
            if line.isEmpty { continue }
            try reader.readLine(String(line), number: index + 1)
        }
        return reader
    }

    private mutating func readLine(_ line: String, number: Int) throws(SessionDescription.Invalid) {
        let characters = Array(line)
        guard characters.count >= 2, characters[1] == "=" else {
            throw .init("line \(number): \"\(line.prefix(40))\" is not an SDP line (<type>=<value>)")
        }
        let value = String(characters[2...])
        switch characters[0] {
        case "m": sections.append(try Self.mediaLine(value, number: number))
        case "c":
            let address = try Self.connectionAddress(value, number: number)
            if sections.isEmpty { sessionAddress = address } else { sections[sections.count - 1].address = address }
        case "a":
            guard let last = sections.indices.last else {
                if let (uri, id) = Self.extmap(value) { sessionExtensions[uri] = sessionExtensions[uri] ?? id }
                return
            }
            guard sections[last].isAudioOrVideo else { return }
            try Self.readAttribute(value, number: number, into: &sections[last])
        default: return
        }
    }

    /// `m=<media> <port>[/<count>] <transport> <format>...`
    private static func mediaLine(_ value: String, number: Int) throws(SessionDescription.Invalid) -> SDPMediaSection {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let media = fields.first ?? ""
        guard fields.count >= 4 else {
            throw .init("m=\(media) line \(number): expected \"m=<media> <port> <transport> <format>...\"")
        }
        var section = SDPMediaSection(media: media, line: number, port: 0, transport: fields[2],
                                      formats: Array(fields[3...]))
        guard section.isAudioOrVideo else { return section }
        let portText = String(fields[1].prefix(while: { $0 != "/" }))
        guard let port = Int(portText) else {
            throw .init("m=\(media) line \(number): port \"\(portText)\" is not a number")
        }
        guard (0...65535).contains(port) else {
            throw .init("m=\(media) line \(number): port \(port) is out of range (1-65535, or 0 to disable)")
        }
        section.port = port
        return section
    }

    /// `c=IN IP4 <address>[/<ttl>]`: the ttl and multicast count are not part of the address.
    private static func connectionAddress(_ value: String, number: Int) throws(SessionDescription.Invalid) -> String {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 3, fields[0] == "IN" else {
            throw .init("c= line \(number): expected \"c=IN IP4 <address>\"")
        }
        return String(fields[2].prefix(while: { $0 != "/" }))
    }

    private static func readAttribute(_ value: String, number: Int,
                                      into section: inout SDPMediaSection) throws(SessionDescription.Invalid) {
        let name = String(value.prefix(while: { $0 != ":" }))
        let rest = value.dropFirst(name.count + 1)
        switch name.lowercased() {
        case "rtpmap":
            let (payloadType, map) = try rtpmap(rest, number: number)
            section.rtpmaps[payloadType] = map
        case "fmtp":
            let (payloadTypeText, parameterText) = splitFirstSpace(rest)
            let payloadType = try payloadTypeNumber(payloadTypeText, attribute: "fmtp", number: number)
            section.formatParameters[payloadType] = SDPFormatParameters(
                parameters: formatParameters(parameterText), line: number)
        case "rtcp":
            // Only the port matters: Tessera receives on its own address.
            let (portText, _) = splitFirstSpace(rest)
            guard let port = Int(portText) else {
                throw .init("a=rtcp line \(number): port \"\(portText)\" is not a number")
            }
            guard (1...65535).contains(port) else {
                throw .init("a=rtcp line \(number): port \(port) is out of range (1-65535)")
            }
            section.rtcpPort = port
        case "rtcp-mux": section.rtcpMux = true
        case "rtcp-fb":
            let (payloadType, type) = splitFirstSpace(rest)
            let normalized = type.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ").lowercased()
            if !normalized.isEmpty { section.feedback[payloadType, default: []].insert(normalized) }
        case "crypto": section.crypto.append((String(rest), number))
        case "extmap":
            if let (uri, id) = extmap(value) { section.extensions[uri] = section.extensions[uri] ?? id }
        default: return
        }
    }

    /// `a=extmap:<id>[/<direction>] <URI> [<attributes>]` (RFC 8285 §8) → (lower-cased URI, id).
    /// Extensions are optional to a receiver, so a line it cannot read is skipped, not refused;
    /// ids above 255 exist only for negotiation and never appear in packets.
    static func extmap(_ value: String) -> (String, UInt8)? {
        guard value.lowercased().hasPrefix("extmap:") else { return nil }
        let fields = value.dropFirst("extmap:".count).split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, let id = UInt8(fields[0].prefix(while: { $0 != "/" })), id != 0 else { return nil }
        return (fields[1].lowercased(), id)
    }

    /// `<pt> <name>/<rate>[/<channels>]`
    private static func rtpmap(_ text: Substring, number: Int) throws(SessionDescription.Invalid) -> (UInt8, SDPRTPMap) {
        let (payloadTypeText, encoding) = splitFirstSpace(text)
        let payloadType = try payloadTypeNumber(payloadTypeText, attribute: "rtpmap", number: number)
        let parts = encoding.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty else {
            throw .init("a=rtpmap line \(number): expected \"a=rtpmap:<payload type> <name>/<clock rate>[/<channels>]\"")
        }
        // Real clock rates are 8000 to 192000 Hz (video 90000); a cap keeps timestamp arithmetic
        // and the decoder's 32-bit sample rate far from overflow.
        guard let clockRate = Int(parts[1]), (1...1_000_000).contains(clockRate) else {
            throw .init("a=rtpmap line \(number): clock rate \"\(parts[1])\" is not a number from 1 to 1000000")
        }
        var channels: Int?
        if parts.count == 3 {
            guard let count = Int(parts[2]), (1...8).contains(count) else {
                throw .init("a=rtpmap line \(number): channel count \"\(parts[2])\" is not a number from 1 to 8")
            }
            channels = count
        }
        return (payloadType, SDPRTPMap(encodingName: parts[0], clockRate: clockRate, channels: channels))
    }

    private static func payloadTypeNumber(_ text: String, attribute: String,
                                          number: Int) throws(SessionDescription.Invalid) -> UInt8 {
        guard let value = UInt8(text), value < 128 else {
            throw .init("a=\(attribute) line \(number): payload type \"\(text)\" is not a number from 0 to 127")
        }
        return value
    }

    /// `k=v; k=v`: keys lower-cased (RFC 6184 names them case-insensitively), values kept as
    /// written because `config` and `sprop-parameter-sets` are case-sensitive data.
    static func formatParameters(_ text: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for item in text.split(separator: ";") {
            let trimmed = item.trimmingWhitespace()
            guard !trimmed.isEmpty else { continue }
            let key = trimmed.prefix(while: { $0 != "=" })
            let value = trimmed.dropFirst(key.count + 1)
            parameters[String(key.trimmingWhitespace()).lowercased()] = String(value.trimmingWhitespace())
        }
        return parameters
    }

    private static func splitFirstSpace(_ text: Substring) -> (String, String) {
        let trimmed = text.trimmingWhitespace()
        let head = trimmed.prefix(while: { $0 != " " })
        return (String(head), String(trimmed.dropFirst(head.count).trimmingWhitespace()))
    }
}

extension Substring {
    /// Without Foundation, so TesseraRTP's parsers stay plain Swift.
    fileprivate func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return self[endIndex...] }
        return self[first...last]
    }
}
