import CFFmpeg
import TesseraRTP
import TesseraTask

extension RTPPublisher {
    /// Everything of an RTP output that changes once it is open: its streams, SRTP sessions and
    /// counters. Held by the publisher's `Mutex`, so the pipeline's sends, the RTCP thread and
    /// the status each see it whole.
    struct Link {
        var video: RTPSentStream?
        var audio: RTPSentStream?
        var protection: SRTPSession?
        /// SRTCP from the receiver, with the same key (SDES keys both directions).
        var feedbackProtection: SRTPSession?
        var state: Publisher.State = .connecting
        var lastError: String?
        var destinationText = ""
        var refused: Int64 = 0
        var plainFeedback: Int64 = 0
        var bytes: Int64 = 0
        var stopping = false
        var started = false

        var streams: [RTPSentStream] { [video, audio].compactMap { $0 } }

        mutating func open(settings: RTPOutputSettings, videoSource: VideoSource?, audioTimeBase: AVRational, cname: String) throws {
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

        /// Protects (with SRTP) and sends one datagram; false when it could not be sent.
        mutating func transmit(_ datagram: [UInt8], on socket: UDPSocket, to peer: RTPEndpoint, isRTCP: Bool) -> Bool {
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

        /// Sends what each stream's RTCP session has due (sender reports); true when one of them
        /// asks for a keyframe.
        mutating func tick(now: Double, ntp: UInt64) -> Bool {
            var wantsKeyframe = false
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
            return wantsKeyframe
        }

        /// Reads one datagram that came back on one of the output's sockets; true when it asks for
        /// a keyframe now. Feedback is given to every stream's session, which keeps what names its
        /// own SSRC: a receiver may send either stream's feedback to either socket.
        mutating func read(_ buffer: inout [UInt8], _ received: UDPSocket.Received, now: Double, ntp: UInt64) -> Bool {
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
                    case .send(let datagram):
                        _ = transmit(datagram, on: candidate.rtcpSocket, to: candidate.rtcpDestination, isRTCP: true)
                    }
                }
            }
            return keyframe
        }

        private mutating func refuse(_ reason: String) -> Bool {
            refused += 1
            lastError = reason
            return false
        }
    }
}
