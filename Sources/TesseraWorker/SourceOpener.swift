import Foundation
import TesseraTask
import TesseraMedia

/// Opens an input's media with the protocol whitelist its kind allows, and nothing wider.
enum SourceOpener {
    /// `decoderThreads`: with several inputs each already has a thread of its own, and a decoder's
    /// own frame threads then only add hand-offs and memory; one input alone gets the cores.
    static func open(_ input: ResolvedInput, interrupt: InterruptFlag, decoderThreads: Int) throws -> MediaSource {
        do {
            switch input.source {
            case .file(let path):
                return try MediaSource(url: path, protocols: "file", interrupt: interrupt, decoderThreads: decoderThreads)
            case .network(let url):
                return try MediaSource(url: url, protocols: networkProtocols(for: url), interrupt: interrupt,
                                       decoderThreads: decoderThreads, readTimeoutSeconds: 5)
            case .rtpSDP, .rtpAllocate:
                throw MediaError("RTP input cannot be read as a container")
            case .sequence:
                throw MediaError("a sequence input is opened file by file (openInput)")
            }
        } catch {
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
    }

    /// Any input, RTP included, for mixing.
    /// `latency` sets an RTP input's jitter allowance; `rtpBindAddress` is `--rtp-bind-address`
    /// (nil: none, as in `tessera mix`).
    static func openInput(_ input: ResolvedInput, interrupt: InterruptFlag, decoderThreads: Int,
                          latency: EncoderLatency = .normal, rtpBindAddress: String? = nil) throws -> any OpenedInput {
        switch input.source {
        case .rtpSDP(let sdp, let source):
            do {
                return try RTPSource(sdp: sdp, interrupt: interrupt, reorderWaitMicroseconds: latency.reorderWaitMicroseconds,
                                     senderSilenceMicroseconds: input.silenceMicroseconds,
                                     sourceFilter: source, bindAddress: rtpBindAddress)
            } catch {
                throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
            }
        case .rtpAllocate:
            throw TaskError.input(id: input.id, url: input.displayURL,
                                  reason: "allocated RTP ports are only available in `tessera serve`")
        case .sequence(let files):
            do {
                return try SequenceInput(files: files) { path in
                    try MediaSource(url: path, protocols: "file", interrupt: interrupt, decoderThreads: decoderThreads)
                }
            } catch {
                throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
            }
        default:
            return try open(input, interrupt: interrupt, decoderThreads: decoderThreads)
        }
    }

    /// Decoder threads per input when `inputCount` inputs share this machine's cores.
    static func decoderThreads(inputCount: Int) -> Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return max(1, min(4, cores / max(1, inputCount)))
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
