import Foundation
import TesseraCore
import TesseraMedia

/// Opens an input's media with the protocol whitelist its kind allows, and nothing wider.
enum SourceOpener {
    static func open(_ input: ResolvedInput, interrupt: InterruptFlag) throws -> MediaSource {
        do {
            switch input.source {
            case .file(let path):
                return try MediaSource(url: path, protocols: "file", interrupt: interrupt)
            case .network(let url):
                return try MediaSource(url: url, protocols: networkProtocols(for: url), interrupt: interrupt)
            case .rtpSDP(let sdp):
                return try MediaSource(sdp: sdp, interrupt: interrupt)
            case .rtpAllocate:
                throw MediaError("allocated RTP ports are only available in `tessera serve`")
            }
        } catch {
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
    }

    static func networkProtocols(for url: String) -> String {
        switch url.prefix(while: { $0 != ":" }).lowercased() {
        case "rtmp", "rtmps": return "rtmp,rtmps,tcp,tls"
        case "http", "https": return "http,https,tcp,tls"
        case "srt": return "srt,udp"
        default: return "none"
        }
    }
}
