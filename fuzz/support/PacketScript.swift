import TesseraRTP

/// A fuzz input read as one RTP stream's packets for a depacketizer, in the order the reorder
/// buffer would hand them over, with the receiver's events between them.
///
/// Each record is a flags byte, a length byte (a second, high byte when flag 0x20 is set) and
/// that many payload bytes (fewer at the end of the input):
///
///     0x01 marker bit   0x02 next timestamp (+3000)   0x04 packetsLost() first
///     0x08 reset() first   0x10 a timestamp going back (-3000)   0x20 16-bit length
///
/// The compact form keeps libFuzzer's mutations on the payload structure rather than on RTP
/// header bytes the depacketizer never sees.
struct PacketScript {
    enum Step { case packet(RTPPacket), lost, reset }

    static func steps(_ bytes: [UInt8]) -> [Step] {
        var reader = FuzzReader(bytes)
        var steps: [Step] = []
        var sequenceNumber: UInt16 = 1000, timestamp: UInt32 = 90_000
        while !reader.isAtEnd {
            let flags = reader.byte()
            var length = Int(reader.byte())
            if flags & 0x20 != 0 { length |= Int(reader.byte()) << 8 }
            if flags & 0x04 != 0 { steps.append(.lost) }
            if flags & 0x08 != 0 { steps.append(.reset) }
            if flags & 0x02 != 0 { timestamp &+= 3000 }
            if flags & 0x10 != 0 { timestamp &-= 3000 }
            steps.append(.packet(RTPPacket(payloadType: 96, marker: flags & 0x01 != 0, sequenceNumber: sequenceNumber,
                                           timestamp: timestamp, ssrc: 0x1234_5678, payload: reader.take(length))))
            sequenceNumber &+= 1
        }
        return steps
    }

    /// Runs the steps through `depacketizer`, checking what every depacketizer promises: frames
    /// are non-empty and within `maxFrameBytes`, a video frame has the timestamp of a packet
    /// pushed, and the statistics count every frame once (a video frame, handed out or dropped,
    /// is made of at least one packet).
    ///
    /// Then `clean` (a keyframe's payloads and the frames they make) is pushed at a new timestamp:
    /// whatever came before, exactly those frames must come out — no input wedges a
    /// depacketizer. H.264 may first end the access unit the script left open (`leftover`).
    static func run<D: RTPDepacketizer>(_ bytes: [UInt8], through depacketizer: inout D, maxFrameBytes: Int, isVideo: Bool,
                                        clean: (payloads: [[UInt8]], frames: [[UInt8]]), leftover: Bool = false) {
        var pushed: Int64 = 0, emitted: Int64 = 0
        var timestamps: Set<UInt32> = []
        var lastTimestamp: UInt32 = 0
        let steps = steps(bytes)
        for step in steps {
            switch step {
            case .lost: depacketizer.packetsLost()
            case .reset: depacketizer.reset()
            case .packet(let packet):
                pushed += 1
                timestamps.insert(packet.timestamp)
                lastTimestamp = packet.timestamp
                let frames = depacketizer.push(packet, arrivalMicroseconds: pushed * 1000)
                emitted += Int64(frames.count)
                for frame in frames {
                    require(!frame.data.isEmpty, "an empty frame came out")
                    require(frame.data.count <= maxFrameBytes,
                            "a frame of \(frame.data.count) bytes came out (limit \(maxFrameBytes))")
                    require(frame.arrivalMicroseconds <= pushed * 1000, "a frame arrived after its last packet")
                    if isVideo { require(timestamps.contains(frame.rtpTimestamp), "a frame with a timestamp no packet had") }
                }
            }
        }
        var sequenceNumber: UInt16 = 1000 &+ UInt16(truncatingIfNeeded: pushed)
        let timestamp = lastTimestamp &+ 1_000_000
        var frames: [[UInt8]] = []
        for (index, payload) in clean.payloads.enumerated() {
            pushed += 1
            let packet = RTPPacket(payloadType: 96, marker: index == clean.payloads.count - 1, sequenceNumber: sequenceNumber,
                                   timestamp: timestamp, ssrc: 0x1234_5678, payload: payload)
            sequenceNumber &+= 1
            let out = depacketizer.push(packet, arrivalMicroseconds: pushed * 1000)
            emitted += Int64(out.count)
            frames += out.map(\.data)
        }
        if leftover && frames.count == clean.frames.count + 1 { frames.removeFirst() }
        require(frames == clean.frames, "after the script, \(frames.count) frames came out of a clean keyframe's \(clean.frames.count)")
        let statistics = depacketizer.statistics
        require(statistics.frames == emitted, "statistics count \(statistics.frames) frames, \(emitted) came out")
        require(statistics.malformedPackets <= pushed, "more malformed packets than pushed")
        if isVideo {
            require(statistics.frames + statistics.droppedFrames <= pushed,
                    "\(statistics.frames) frames and \(statistics.droppedFrames) dropped from \(pushed) packets")
        }
    }
}
