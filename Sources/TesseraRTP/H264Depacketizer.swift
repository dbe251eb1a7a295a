/// H.264 over RTP (RFC 6184, packetization modes 0 and 1) to Annex B access units.
///
/// Only single NAL units, STAP-A and FU-A exist in modes 0 and 1; everything else (STAP-B, MTAP,
/// FU-B, reserved types) is refused rather than guessed at. FU-A fragments are written straight
/// into the access unit's buffer, so a big IDR slice is copied once.
public struct H264Depacketizer: FrameAssemblingDepacketizer {
    static let startCode: [UInt8] = [0, 0, 0, 1]

    var assembler: VideoFrameAssembler
    private var parameterSets: H264ParameterSets
    /// Inside the access unit: an FU-A NAL unit has started and not ended.
    private var fragmentOpen = false
    /// Packets may be missing (loss, late join, reset), so an FU-A continuation without its start
    /// is expected there, not malformed; its access unit is dropped either way.
    private var orphanFragmentsExpected = true
    private var sawSPS = false
    private var sawIDR = false
    /// Where parameter sets go: after a leading access unit delimiter, which must stay first.
    private var parameterSetOffset = 0

    public init(parameterSets: [[UInt8]] = [], maxFrameBytes: Int = 8 << 20) {
        assembler = VideoFrameAssembler(maxFrameBytes: maxFrameBytes)
        self.parameterSets = H264ParameterSets(fromDescription: parameterSets)
    }

    public mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        var frames: [EncodedMediaFrame] = []
        let payload = packet.payload
        // An access unit that ends (by a new timestamp) inside an FU-A NAL unit lacks that NAL's tail.
        if fragmentOpen && assembler.isOpen && packet.timestamp != assembler.timestamp { assembler.dropOpenFrame() }
        if assembler.startPacket(timestamp: packet.timestamp, arrivalMicroseconds: arrivalMicroseconds,
                                 start: Self.frameStart(payload), into: &frames) {
            fragmentOpen = false; sawSPS = false; sawIDR = false; parameterSetOffset = 0
        }
        if !depacketize(payload) {
            // The refused packet may have been a fragment start: its continuations are no news.
            forgetFragment()
            assembler.markMalformed()
        }
        if packet.marker {
            if fragmentOpen { assembler.markMalformed() }
            fragmentOpen = false
            assembler.endFrame(into: &frames)
        }
        return frames
    }

    public mutating func packetsLost() {
        forgetFragment()
        assembler.packetsLost()
    }

    public mutating func reset() {
        forgetFragment()
        assembler.reset()
    }

    /// An FU-A in progress is lost; continuations that arrive for it are expected, not malformed.
    private mutating func forgetFragment() {
        fragmentOpen = false
        orphanFragmentsExpected = true
    }

    // MARK: - Payload structures

    /// False if the packet is malformed. Bytes are appended while parsing; an error midway drops
    /// the whole access unit, so nothing needs undoing.
    private mutating func depacketize(_ payload: [UInt8]) -> Bool {
        guard let indicator = payload.first, indicator & 0x80 == 0 else { return false }
        switch indicator & 0x1F {
        case 28:
            return appendFragment(payload)
        case _ where fragmentOpen:
            return false  // another packet inside an FU-A NAL unit
        case 1...23:
            orphanFragmentsExpected = false
            appendNAL(payload[...])
            return true
        case 24:
            orphanFragmentsExpected = false
            return appendAggregate(payload)
        default:
            return false
        }
    }

    /// STAP-A: 16-bit sizes, each NAL unit checked to be non-empty, valid and inside the packet.
    private mutating func appendAggregate(_ payload: [UInt8]) -> Bool {
        var offset = 1
        guard payload.count > offset else { return false }
        while offset < payload.count {
            guard offset + 2 <= payload.count else { return false }
            let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            offset += 2
            guard size > 0, offset + size <= payload.count, Self.isSingleNALHeader(payload[offset]) else { return false }
            appendNAL(payload[offset..<offset + size])
            offset += size
        }
        return true
    }

    /// FU-A: the NAL header is rebuilt from the indicator's F and NRI and the FU header's type.
    /// The FU header's R bit is ignored, as RFC 6184 §5.8 asks of receivers.
    private mutating func appendFragment(_ payload: [UInt8]) -> Bool {
        guard payload.count >= 3 else { return false }
        let fuHeader = payload[1]
        let isStart = fuHeader & 0x80 != 0, isEnd = fuHeader & 0x40 != 0
        let type = fuHeader & 0x1F
        guard !(isStart && isEnd), (1...23).contains(type) else { return false }
        if !isStart && !fragmentOpen && orphanFragmentsExpected { return true }
        guard isStart != fragmentOpen else { return false }
        orphanFragmentsExpected = false
        if isStart {
            noteNALType(type)
            assembler.append(Self.startCode)
            assembler.append([payload[0] & 0xE0 | type])
        }
        fragmentOpen = !isEnd
        assembler.append(payload[2...])
        return true
    }

    private mutating func appendNAL(_ nal: ArraySlice<UInt8>) {
        let type = nal[nal.startIndex] & 0x1F
        let isFirst = assembler.byteCount == 0
        noteNALType(type)
        parameterSets.remember(nal)
        assembler.append(Self.startCode)
        assembler.append(nal)
        if type == 9 && isFirst { parameterSetOffset = assembler.byteCount }
    }

    /// Tracks what the access unit holds; puts parameter sets ahead of the first IDR slice when
    /// the access unit has no SPS, so a decoder can start on any keyframe that comes out.
    private mutating func noteNALType(_ type: UInt8) {
        switch type {
        case 7:
            sawSPS = true
        case 5:
            assembler.markKeyframe()
            if !sawIDR && !sawSPS {
                let annexB = parameterSets.annexB
                if !annexB.isEmpty { assembler.insert(annexB, at: parameterSetOffset) }
            }
            sawIDR = true
        default:
            break
        }
    }

    /// Forbidden bit clear and a type a single NAL unit packet may carry.
    static func isSingleNALHeader(_ byte: UInt8) -> Bool {
        byte & 0x80 == 0 && (1...23).contains(byte & 0x1F)
    }

    /// Whether this packet certainly opens an access unit (H.264 §7.4.1.2.3): a delimiter, SEI or
    /// parameter set, or a slice whose first_mb_in_slice is 0 (ue(v) code "1"). Used after a loss
    /// to tell a whole access unit from the tail of one. A first slice counts as a start although
    /// SEI or parameter sets may have gone before it: senders that keep parameter sets in the SDP
    /// send nothing else, and lost parameter sets are replaced from sprop.
    static func frameStart(_ payload: [UInt8]) -> VideoFrameAssembler.FrameStart {
        guard payload.count >= 2 else { return .unknown }
        var type = payload[0] & 0x1F
        var next = 1
        switch type {
        case 24:
            guard payload.count >= 5 else { return .unknown }
            type = payload[3] & 0x1F; next = 4
        case 28:
            guard payload[1] & 0x80 != 0 else { return .impossible }
            type = payload[1] & 0x1F; next = 2
        default:
            break
        }
        switch type {
        case 6...9, 14, 15: return .certain
        case 1, 5: return next < payload.count && payload[next] & 0x80 != 0 ? .certain : .unknown
        default: return .unknown
        }
    }
}

