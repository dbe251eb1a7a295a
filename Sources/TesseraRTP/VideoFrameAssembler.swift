/// The frame-boundary and keyframe-gate logic the video depacketizers share; each codec only
/// parses its payload format and feeds bytes in.
///
/// The one rule it enforces: a decoder never sees a frame that is missing data, nor a predicted
/// frame whose references it may not have. So any frame touched by loss or by a malformed packet
/// is dropped whole, and after that (and at start or reset) frames are dropped until a keyframe
/// arrives that is known to be complete from its first packet.
struct VideoFrameAssembler {
    /// What a packet says about being a frame's first packet.
    enum FrameStart {
        /// Certainly the first packet (VP8 S=1 PID=0, VP9 B=1, H.264 AUD/SPS/first slice).
        case certain
        /// Certainly not (VP8/VP9 continuation, H.264 FU-A continuation).
        case impossible
        /// The payload format cannot tell (most H.264 NAL units).
        case unknown
    }

    let maxFrameBytes: Int
    private(set) var statistics = DepacketizerStatistics()
    private var data: [UInt8] = []
    private(set) var timestamp: UInt32 = 0
    private var arrivalMicroseconds: Int64 = 0
    private(set) var isOpen = false
    private var isKeyframe = false
    private var isDamaged = false
    /// Packets may be missing before the next one (loss, start, reset): a frame opened by it is
    /// only trusted if its packet is certainly a frame start.
    private var continuityUnknown = true
    private var waitingForKeyframe = true
    /// The current packet was already counted as malformed (one packet, one count).
    private var packetRefused = false

    init(maxFrameBytes: Int) {
        self.maxFrameBytes = max(1, maxFrameBytes)
    }

    /// Bytes gathered so far in the open frame.
    var byteCount: Int { data.count }

    /// Whether appended bytes are kept: the frame is open and undamaged.
    var isAccepting: Bool { isOpen && !isDamaged }

    /// Places a packet in a frame: ends the open frame if the timestamp moved on, and opens one if
    /// none is open. Returns whether a new frame was opened (codecs reset their per-frame state).
    mutating func startPacket(timestamp: UInt32, arrivalMicroseconds: Int64, start: FrameStart,
                              into frames: inout [EncodedMediaFrame]) -> Bool {
        if isOpen && timestamp != self.timestamp { endFrame(into: &frames) }
        self.arrivalMicroseconds = arrivalMicroseconds
        packetRefused = false
        defer { continuityUnknown = false }
        guard !isOpen else { return false }
        isOpen = true
        self.timestamp = timestamp
        isKeyframe = false
        isDamaged = start == .impossible || (start == .unknown && continuityUnknown)
        return true
    }

    /// Appends bytes to the open frame. A frame growing past `maxFrameBytes` is dropped as
    /// malformed; a damaged frame ignores bytes, so codecs can keep parsing to validate the packet.
    mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard isAccepting else { return }
        guard data.count + bytes.count <= maxFrameBytes else { return markMalformed() }
        data.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) { append(bytes[...]) }

    /// Inserts bytes inside the open frame (H.264 parameter sets ahead of an IDR slice); same
    /// limits as `append`.
    mutating func insert(_ bytes: [UInt8], at offset: Int) {
        guard isAccepting else { return }
        guard data.count + bytes.count <= maxFrameBytes else { return markMalformed() }
        data.insert(contentsOf: bytes, at: min(offset, data.count))
    }

    mutating func markKeyframe() { isKeyframe = true }

    /// The whole of a packet whose descriptor says where frames start and end (VP8, VP9).
    mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64, descriptor: PayloadDescriptor) -> [EncodedMediaFrame] {
        var frames: [EncodedMediaFrame] = []
        // These formats mark every frame's last packet, so a frame still open when another starts
        // (or the timestamp moves on) lost its end somewhere: it must not reach the decoder.
        if descriptor.startsFrame || packet.timestamp != timestamp { abandonOpenFrame() }
        _ = startPacket(timestamp: packet.timestamp, arrivalMicroseconds: arrivalMicroseconds,
                        start: descriptor.startsFrame ? .certain : .impossible, into: &frames)
        if descriptor.isKeyframe { markKeyframe() }
        append(packet.payload[descriptor.length...])
        if descriptor.endsFrame { endFrame(into: &frames) }
        return frames
    }

    /// A packet whose payload descriptor cannot be read: by its timestamp it still belongs to a
    /// frame, which now has a hole.
    mutating func refuse(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        var frames: [EncodedMediaFrame] = []
        if packet.timestamp != timestamp { abandonOpenFrame() }
        _ = startPacket(timestamp: packet.timestamp, arrivalMicroseconds: arrivalMicroseconds, start: .unknown, into: &frames)
        markMalformed()
        if packet.marker { endFrame(into: &frames) }
        return frames
    }

    /// Counts a refused packet; the frame it belonged to has a hole now, so it is dropped too.
    mutating func markMalformed() {
        if !packetRefused { statistics.malformedPackets += 1 }
        packetRefused = true
        dropOpenFrame()
    }

    /// Closes the open frame: hands it out if complete and decodable, drops it otherwise.
    mutating func endFrame(into frames: inout [EncodedMediaFrame]) {
        guard isOpen else { return }
        isOpen = false
        if isDamaged {
            statistics.droppedFrames += 1
            waitingForKeyframe = true
        } else if data.isEmpty {
            return
        } else if waitingForKeyframe && !isKeyframe {
            statistics.droppedFrames += 1
        } else {
            waitingForKeyframe = false
            statistics.frames += 1
            let bytes = data
            data = []
            data.reserveCapacity(bytes.count)
            frames.append(EncodedMediaFrame(data: bytes, rtpTimestamp: timestamp, isKeyframe: isKeyframe,
                                            arrivalMicroseconds: arrivalMicroseconds))
        }
        data.removeAll(keepingCapacity: true)
    }

    /// Ends the open frame, if any, as dropped: it is known to be incomplete.
    mutating func abandonOpenFrame() {
        guard isOpen else { return }
        dropOpenFrame()
        var none: [EncodedMediaFrame] = []
        endFrame(into: &none)
    }

    /// The open frame (if any) has a hole; whatever comes next may lack its start.
    mutating func packetsLost() {
        if isOpen { dropOpenFrame() }
        continuityUnknown = true
        waitingForKeyframe = true
    }

    /// Forgets the open frame (counted as dropped if it had begun) and waits for a keyframe.
    mutating func reset() {
        if isOpen { statistics.droppedFrames += 1 }
        isOpen = false
        data = []
        continuityUnknown = true
        waitingForKeyframe = true
    }

    /// The open frame is known to be incomplete: it will be counted as dropped when it ends.
    mutating func dropOpenFrame() {
        isDamaged = true
        waitingForKeyframe = true
        data.removeAll(keepingCapacity: true)
    }
}

/// The video depacketizers: statistics, loss and reset all belong to the assembler.
protocol FrameAssemblingDepacketizer: RTPDepacketizer {
    var assembler: VideoFrameAssembler { get set }
}

extension FrameAssemblingDepacketizer {
    public var statistics: DepacketizerStatistics { assembler.statistics }
    /// Frames (and NAL units) larger than this are dropped as malformed.
    public var maxFrameBytes: Int { assembler.maxFrameBytes }
    public mutating func packetsLost() { assembler.packetsLost() }
    public mutating func reset() { assembler.reset() }
}

/// What a VP8 or VP9 payload descriptor says about its packet.
struct PayloadDescriptor {
    /// Bytes of descriptor before the codec's data.
    var length: Int
    var startsFrame: Bool
    var isKeyframe: Bool
    var endsFrame: Bool
}

/// Depacketizers whose payload descriptor alone places each packet in its frame.
protocol DescriptorDepacketizer: FrameAssemblingDepacketizer {
    /// Nil if the descriptor runs past the payload or no codec data follows it.
    static func descriptor(_ payload: [UInt8], marker: Bool) -> PayloadDescriptor?
}

extension DescriptorDepacketizer {
    public mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        guard let descriptor = Self.descriptor(packet.payload, marker: packet.marker) else {
            return assembler.refuse(packet, arrivalMicroseconds: arrivalMicroseconds)
        }
        return assembler.push(packet, arrivalMicroseconds: arrivalMicroseconds, descriptor: descriptor)
    }
}
