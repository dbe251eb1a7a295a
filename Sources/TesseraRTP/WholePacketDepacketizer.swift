/// Opus, PCMU, PCMA: each packet's payload is one frame.
///
/// Nothing spans packets, so a loss costs exactly the lost frames and nothing is waited for.
public struct WholePacketDepacketizer: RTPDepacketizer {
    public private(set) var statistics = DepacketizerStatistics()

    public init() {}

    public mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame] {
        guard !packet.payload.isEmpty else {
            statistics.malformedPackets += 1
            return []
        }
        statistics.frames += 1
        return [EncodedMediaFrame(data: packet.payload, rtpTimestamp: packet.timestamp, isKeyframe: true,
                                  arrivalMicroseconds: arrivalMicroseconds)]
    }

    public mutating func packetsLost() {}

    public mutating func reset() {}
}
