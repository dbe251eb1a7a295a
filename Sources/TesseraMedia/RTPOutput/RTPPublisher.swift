import CFFmpeg
import Foundation
import Synchronization
import TesseraRTP
import TesseraTask

/// An RTP output: the mix sent back into the room, to an SFU (mediasoup's PlainTransport, a Janus
/// Streaming mountpoint) as one more participant.
///
/// Packets go out on the pipeline's thread as they are encoded (no queue: UDP never waits for the
/// peer, and every millisecond here is latency the room hears). A thread of the publisher's own
/// reads the receiver's RTCP — PLI / FIR become keyframe requests on the encoder, receiver
/// reports become the output's loss, jitter and round trip — and sends sender reports about once
/// a second, which is also how a Janus mountpoint learns where to send its keyframe requests.
///
/// Threads: `send` from the pipeline's thread, `finish` / `cancel` / `snapshot` from any; all
/// mutable state is one `Link` under a `Mutex`. The RTCP thread ends within 50 ms of `finish` or
/// `cancel`.
final class RTPPublisher: Sendable {
    let output: ResolvedOutput
    let settings: RTPOutputSettings
    let videoFormat: VideoEncodeFormat?
    /// The SDP this output sends by, for the status.
    let sessionDescription: String
    private let link: Mutex<Link>
    /// Where the receiver's feedback comes back, fixed when the output opens. Feedback is read
    /// wherever it comes: most receivers answer the RTCP socket, but some send it to where the
    /// RTP came from (a Janus VideoRoom remote publisher latches that address).
    private let feedbackSockets: [UDPSocket]
    private let stateChanged: ChangeSignal?
    private let requestKeyframe: @Sendable () -> Void
    /// Signalled when the RTCP thread has ended.
    private let done = DispatchSemaphore(value: 0)

    struct VideoSource {
        var format: VideoEncodeFormat
        var timeBase: AVRational
        /// SPS / PPS from the encoder's extradata when it keeps them out of band (a shared main
        /// encode opened with a global header); put in front of each keyframe.
        var parameterSets: [[UInt8]]
    }

    init(output: ResolvedOutput, settings: RTPOutputSettings, video videoSource: VideoSource?, audioTimeBase: AVRational,
         sessionDescription: String, cname: String, stateChanged: ChangeSignal?,
         requestKeyframe: @escaping @Sendable () -> Void) {
        self.output = output
        self.settings = settings
        self.videoFormat = videoSource?.format
        self.sessionDescription = sessionDescription
        self.stateChanged = stateChanged
        self.requestKeyframe = requestKeyframe
        var link = Link()
        do {
            try link.open(settings: settings, videoSource: videoSource, audioTimeBase: audioTimeBase, cname: cname)
            link.state = .live
        } catch {
            link.state = .failed
            link.lastError = "\(error)"
        }
        feedbackSockets = link.streams.flatMap { $0.rtcpSocket === $0.rtpSocket ? [$0.rtpSocket] : [$0.rtpSocket, $0.rtcpSocket] }
        self.link = Mutex(link)
    }

    func start() {
        let canRun = link.withLock { link -> Bool in
            link.started = link.state == .live
            return link.started
        }
        guard canRun else { return }
        let thread = Thread { [self] in
            runFeedbackLoop()
            done.signal()
        }
        thread.name = "tessera-rtp-output"
        thread.start()
    }

    // MARK: Pipeline side

    /// Sends one encoded frame of video (`isVideo`) or audio now.
    func send(_ packet: Packet, isVideo: Bool) {
        guard let data = packet.pointer.pointee.data, packet.pointer.pointee.size > 0 else { return }
        // Copied out of the encoder's packet, so that only a value enters the lock (the copy is a
        // frame's bytes, small beside the datagrams made from it).
        let frame = Array(UnsafeRawBufferPointer(start: data, count: Int(packet.pointer.pointee.size)))
        let pts = packet.pointer.pointee.pts
        let now = MonotonicClock.seconds
        link.withLock { link in
            guard !link.stopping, link.state == .live, let stream = isVideo ? link.video : link.audio else { return }
            for datagram in frame.withUnsafeBytes({ stream.packets(of: $0, pts: pts, now: now) }) {
                if link.transmit(datagram, on: stream.rtpSocket, to: stream.destination, isRTCP: false) {
                    link.bytes += Int64(datagram.count)
                }
            }
        }
    }

    // MARK: Ending

    /// Says goodbye (RTCP BYE) and stops the RTCP thread.
    func finish(timeoutSeconds: Double = 2) {
        let wasStarted = link.withLock { link -> Bool in
            guard !link.stopping else { return false }
            link.stopping = true
            for stream in link.streams {
                _ = link.transmit(stream.session.goodbye(), on: stream.rtcpSocket, to: stream.rtcpDestination, isRTCP: true)
            }
            if link.state == .live { link.state = .finished }
            return link.started
        }
        if wasStarted { _ = done.wait(timeout: .now() + timeoutSeconds) }
    }

    func cancel() { finish(timeoutSeconds: 1) }

    var snapshot: Publisher.Snapshot {
        link.withLock { link in
            var snapshot = Publisher.Snapshot(state: link.state, bytes: link.bytes, reconnects: 0, droppedPackets: 0,
                                              lastError: link.lastError)
            if let audio = link.audio {
                snapshot.rtp = RTPOutputStatus(destination: link.destinationText, video: link.video?.status, audio: audio.status,
                                               refusedDatagrams: link.refused, plainFeedback: link.plainFeedback)
            }
            snapshot.sessionDescription = sessionDescription
            return snapshot
        }
    }

    // MARK: RTCP thread

    private func runFeedbackLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !link.withLock({ $0.stopping }) {
            UDPSocket.wait(for: feedbackSockets, wake: -1, timeoutMilliseconds: 50)
            let now = MonotonicClock.seconds
            let ntp = NTPClock.now()
            var wantsKeyframe = false
            for socket in feedbackSockets {
                while let received = buffer.withUnsafeMutableBytes({ socket.receiveWithSender(into: $0) }) {
                    let asks = link.withLock { $0.read(&buffer, received, now: now, ntp: ntp) }
                    wantsKeyframe = wantsKeyframe || asks
                }
            }
            if link.withLock({ $0.tick(now: now, ntp: ntp) }) { wantsKeyframe = true }
            if wantsKeyframe { requestKeyframe() }
        }
    }
}
