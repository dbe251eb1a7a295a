import CFFmpeg
import Foundation
import TesseraRTP
import TesseraTask

/// One medium of an RTP output: its sockets, packetizer, sequence and timestamp state, and the
/// RTCP session that sends its sender reports and reads the receiver's feedback about it.
///
/// Threads: used only inside its publisher's `Mutex`.
final class RTPSentStream {
    enum Payload {
        case h264(H264Packetizer, parameterSets: [[UInt8]])
        case vp8(VP8Packetizer)
        /// One encoded frame per packet (Opus, RFC 7587).
        case whole
    }

    let isVideo: Bool
    let destination: RTPEndpoint
    let rtcpDestination: RTPEndpoint
    let rtpSocket: UDPSocket
    /// The RTP socket itself with rtcp-mux.
    let rtcpSocket: UDPSocket
    private var payload: Payload
    private(set) var sender: RTPStreamSender
    var session: RTPSenderSession
    /// The encoder's time base (1/fps, 1/sample rate) and the RTP clock.
    private let timeBase: AVRational
    let clockRate: Int
    /// Media time 0 on the monotonic clock, as early as any packet showed it: a sender report
    /// maps "now" onto the media clock from here, the same way for audio and video (lip sync).
    private var anchor: Double?

    init(settings: RTPOutputSettings.Stream, isVideo: Bool, destination address: [UInt8], rtcpMux: Bool,
         payload: Payload, timeBase: AVRational, clockRate: Int, cname: String) throws {
        self.isVideo = isVideo
        destination = RTPEndpoint(address: address, port: UInt16(settings.port))
        rtcpDestination = RTPEndpoint(address: address, port: UInt16(settings.rtcpPort))
        rtpSocket = try UDPSocket.sender(for: address)
        rtcpSocket = rtcpMux ? rtpSocket : try UDPSocket.sender(for: address)
        self.payload = payload
        self.timeBase = timeBase
        self.clockRate = clockRate
        var random = SystemRandomNumberGenerator()
        sender = RTPStreamSender(ssrc: settings.ssrc, payloadType: UInt8(settings.payloadType), clockRate: clockRate,
                                 initialSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                                 timestampOffset: UInt32.random(in: 0...UInt32.max, using: &random))
        session = RTPSenderSession(ssrc: settings.ssrc, clockRate: clockRate, cname: cname, isVideo: isVideo)
    }

    /// The RTP packets of one encoded frame at `pts` (in the encoder's time base), sent `now`.
    func packets(of data: UnsafeRawBufferPointer, pts: Int64, now: Double) -> [[UInt8]] {
        let mediaTime = pts * Int64(clockRate) * Int64(timeBase.num) / Int64(timeBase.den)
        let started = now - Double(mediaTime) / Double(clockRate)
        anchor = min(anchor ?? started, started)
        switch payload {
        case .h264(let packetizer, let parameterSets):
            let payloads = packetizer.payloads(accessUnit: data, parameterSets: parameterSets)
            return sender.packets(payloads: payloads, mediaTime: mediaTime, marker: true)
        case .vp8(var packetizer):
            let payloads = packetizer.payloads(frame: data)
            payload = .vp8(packetizer)
            return sender.packets(payloads: payloads, mediaTime: mediaTime, marker: true)
        case .whole:
            return sender.packets(payloads: [Array(data)], mediaTime: mediaTime, marker: false)
        }
    }

    /// Sender reports due `now` (none before the first packet: there is no media time to map).
    func tick(now: Double, ntp: UInt64) -> [RTPSenderAction] {
        guard let anchor else { return [] }
        let mediaNow = Int64(((now - anchor) * Double(clockRate)).rounded())
        return session.tick(now: now, ntp: ntp, rtpTimestamp: sender.rtpTimestamp(mediaTime: mediaNow),
                            packetCount: sender.packetCount, octetCount: sender.octetCount)
    }

    var status: RTPSentStreamStatus {
        let statistics = session.statistics
        let reported = statistics.reportsReceived > 0
        return RTPSentStreamStatus(ssrc: sender.ssrc, packets: Int64(sender.packetCount), bytes: Int64(sender.octetCount),
                                   senderReports: statistics.reportsSent, receiverReports: statistics.reportsReceived,
                                   pli: statistics.pli, fir: statistics.fir, keyframesRequested: statistics.keyframesRequested,
                                   nackedPackets: statistics.nackedPackets,
                                   fractionLost: reported ? statistics.fractionLost : nil,
                                   cumulativeLost: reported ? statistics.cumulativeLost : nil,
                                   jitterMs: reported ? statistics.jitterMs : nil, rttMs: statistics.rttMs)
    }
}
