import CFFmpeg
import Foundation
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
/// state under `lock`. The RTCP thread ends within 50 ms of `finish` or `cancel`.
final class RTPPublisher: @unchecked Sendable {
    let output: ResolvedOutput
    let settings: RTPOutputSettings
    let videoFormat: VideoEncodeFormat?
    /// The SDP this output sends by, for the status.
    let sessionDescription: String
    private let lock = NSLock()
    private var video: RTPSentStream?
    private var audio: RTPSentStream?
    private var protection: SRTPSession?
    /// SRTCP from the receiver, with the same key (SDES keys both directions).
    private var feedbackProtection: SRTPSession?
    private var state: Publisher.State = .connecting
    private var lastError: String?
    private var destinationText = ""
    private var refused: Int64 = 0
    private var plainFeedback: Int64 = 0
    private var bytes: Int64 = 0
    private var stopping = false
    private let stateChanged: ChangeSignal?
    private let requestKeyframe: @Sendable () -> Void
    private let done = DispatchSemaphore(value: 0)
    private var started = false

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
        do {
            try open(videoSource: videoSource, audioTimeBase: audioTimeBase, cname: cname)
            state = .live
        } catch {
            state = .failed
            lastError = "\(error)"
        }
    }

    private func open(videoSource: VideoSource?, audioTimeBase: AVRational, cname: String) throws {
        guard let address = HostResolver.addresses(of: settings.host)?.first else {
            throw MediaError("cannot resolve \(settings.host)")
        }
        if let srtp = settings.srtp {
            guard let suite = SRTPSuite(name: srtp.suite) else { throw MediaError("unknown SRTP suite \(srtp.suite)") }
            let keying = try SRTPKeying(suite: suite, base64Key: srtp.key)
            protection = try SRTPSession(keying: keying, direction: .outbound)
            feedbackProtection = try SRTPSession(keying: keying, direction: .inbound)
        }
        if let videoStream = settings.video, let videoSource {
            let payload: RTPSentStream.Payload = videoSource.format == .vp8
                ? .vp8(VP8Packetizer()) : .h264(H264Packetizer(), parameterSets: videoSource.parameterSets)
            video = try RTPSentStream(settings: videoStream, isVideo: true, destination: address, rtcpMux: settings.rtcpMux,
                                      payload: payload, timeBase: videoSource.timeBase,
                                      clockRate: RTPOutputSettings.videoClockRate, cname: cname)
        }
        audio = try RTPSentStream(settings: settings.audio, isVideo: false, destination: address, rtcpMux: settings.rtcpMux,
                                  payload: .whole, timeBase: audioTimeBase, clockRate: RTPOutputSettings.audioClockRate,
                                  cname: cname)
        destinationText = RTPEndpoint(address: address, port: UInt16(settings.video?.port ?? settings.audio.port)).description
    }

    func start() {
        let canRun = lock.withLock { () -> Bool in
            started = state == .live
            return started
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
        let frame = UnsafeRawBufferPointer(start: data, count: Int(packet.pointer.pointee.size))
        let pts = packet.pointer.pointee.pts
        let now = MonotonicClock.seconds
        lock.withLock {
            guard !stopping, state == .live, let stream = isVideo ? video : audio else { return }
            for datagram in stream.packets(of: frame, pts: pts, now: now) {
                if transmit(datagram, on: stream.rtpSocket, to: stream.destination, isRTCP: false) {
                    bytes += Int64(datagram.count)
                }
            }
        }
    }

    /// Protects (with SRTP) and sends one datagram; false when it could not be sent.
    private func transmit(_ datagram: [UInt8], on socket: UDPSocket, to peer: RTPEndpoint, isRTCP: Bool) -> Bool {
        guard let protection else { return socket.send(datagram, to: peer) }
        let room = isRTCP ? SRTPSession.rtcpTrailerRoom : SRTPSession.rtpTrailerRoom
        var buffer = datagram + [UInt8](repeating: 0, count: room)
        let result = buffer.withUnsafeMutableBytes { bytes in
            isRTCP ? protection.protectRTCP(bytes, length: datagram.count) : protection.protectRTP(bytes, length: datagram.count)
        }
        switch result {
        case .success(let length):
            return socket.send(Array(buffer[0..<length]), to: peer)
        case .failure(let error):
            lastError = "SRTP: \(error)"
            return false
        }
    }

    // MARK: Ending

    /// Says goodbye (RTCP BYE) and stops the RTCP thread.
    func finish(timeoutSeconds: Double = 2) {
        let wasStarted = lock.withLock { () -> Bool in
            guard !stopping else { return false }
            stopping = true
            for stream in [video, audio].compactMap({ $0 }) {
                _ = transmit(stream.session.goodbye(), on: stream.rtcpSocket, to: stream.rtcpDestination, isRTCP: true)
            }
            if state == .live { state = .finished }
            return started
        }
        if wasStarted { _ = done.wait(timeout: .now() + timeoutSeconds) }
    }

    func cancel() { finish(timeoutSeconds: 1) }

    var snapshot: Publisher.Snapshot {
        lock.withLock {
            var snapshot = Publisher.Snapshot(state: state, bytes: bytes, reconnects: 0, droppedPackets: 0, lastError: lastError)
            if let audio {
                snapshot.rtp = RTPOutputStatus(destination: destinationText, video: video?.status, audio: audio.status,
                                               refusedDatagrams: refused, plainFeedback: plainFeedback)
            }
            snapshot.sessionDescription = sessionDescription
            return snapshot
        }
    }

    // MARK: RTCP thread

    private func runFeedbackLoop() {
        let streams = lock.withLock { [video, audio].compactMap { $0 } }
        // Feedback is read wherever it comes: most receivers answer the RTCP socket, but some send
        // it to where the RTP came from (a Janus VideoRoom remote publisher latches that address).
        let sockets = streams.flatMap { $0.rtcpSocket === $0.rtpSocket ? [$0.rtpSocket] : [$0.rtpSocket, $0.rtcpSocket] }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !lock.withLock({ stopping }) {
            UDPSocket.wait(for: sockets, wake: -1, timeoutMilliseconds: 50)
            let now = MonotonicClock.seconds
            let ntp = NTPClock.now()
            var wantsKeyframe = false
            for socket in sockets {
                while let received = buffer.withUnsafeMutableBytes({ socket.receiveWithSender(into: $0) }) {
                    let asks = lock.withLock { read(&buffer, received, streams: streams, now: now, ntp: ntp) }
                    wantsKeyframe = wantsKeyframe || asks
                }
            }
            lock.withLock {
                for stream in streams {
                    for action in stream.tick(now: now, ntp: ntp) {
                        switch action {
                        case .send(let datagram):
                            _ = transmit(datagram, on: stream.rtcpSocket, to: stream.rtcpDestination, isRTCP: true)
                        case .requestKeyframe:
                            wantsKeyframe = true
                        }
                    }
                }
            }
            if wantsKeyframe { requestKeyframe() }
        }
    }

    /// Reads one datagram that came back on one of the output's sockets; true when it asks for a
    /// keyframe now. Feedback is given to every stream's session, which keeps what names its own
    /// SSRC: a receiver may send either stream's feedback to either socket.
    private func read(_ buffer: inout [UInt8], _ received: UDPSocket.Received, streams: [RTPSentStream],
                      now: Double, ntp: UInt64) -> Bool {
        guard !received.truncated else { return refuse("a datagram longer than \(buffer.count) bytes from \(received.sender)") }
        var length = received.length
        var plain = false
        if let feedbackProtection {
            let unprotected = buffer.withUnsafeMutableBytes { feedbackProtection.unprotectRTCP($0, length: length) }
            switch unprotected {
            case .success(let count): length = count
            case .failure: plain = true
            }
        }
        let parsed = buffer.withUnsafeBytes { RTCPSenderFeedback.parse(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        guard let feedback = parsed else {
            return refuse(plain ? "RTCP from \(received.sender) failed SRTCP authentication" : "RTCP from \(received.sender) is malformed")
        }
        if plain { plainFeedback += 1 }
        var keyframe = false
        for candidate in streams {
            for action in candidate.session.received(feedback, now: now, ntp: ntp) {
                switch action {
                case .requestKeyframe: keyframe = true
                case .send(let datagram): _ = transmit(datagram, on: candidate.rtcpSocket, to: candidate.rtcpDestination, isRTCP: true)
                }
            }
        }
        return keyframe
    }

    private func refuse(_ reason: String) -> Bool {
        refused += 1
        lastError = reason
        return false
    }
}
