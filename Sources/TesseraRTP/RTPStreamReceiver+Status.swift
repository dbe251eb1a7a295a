/// What a stream sends back and reports: its feedback, its deadlines, its medium's state and
/// its share of the input's packet counters.
extension RTPStreamReceiver {
    /// The RTCP datagram due now, if any, and where it goes: to where the sender's RTCP comes
    /// from, else the RTP sender's address (at port + 1 without rtcp-mux). Nothing goes out
    /// before a packet has arrived: there is no one to address yet.
    public mutating func feedback(nowMicroseconds now: Int64) -> Feedback? {
        let missing = rtcp.feedback.contains(.nack) ? reorder.missingSequenceNumbers() : []
        guard let datagram = rtcp.poll(nowMicroseconds: now, missing: missing) else { return nil }
        let fallback = rtpPeer.map { media.rtcpMux ? $0 : $0.withPort($0.port &+ 1) }
        guard let peer = rtcpPeer ?? fallback else { return nil }
        return Feedback(datagram: datagram, peer: peer)
    }

    /// When `expire` or `feedback` next has something to do; nil when nothing is scheduled.
    public var nextDeadlineMicroseconds: Int64? {
        [reorder.nextDeadlineMicroseconds, rtcp.nextDeadlineMicroseconds].compactMap { $0 }.min()
    }

    /// A medium is live once it is decoded; video that has packets but no keyframe to start from
    /// says so, as that is what an operator needs to see when a region stays on its placeholder.
    public func mediumState(nowMicroseconds now: Int64) -> RTPMediumState {
        guard let last = lastPacketMicroseconds, now - last < senderSilenceMicroseconds else { return .noPackets }
        if media.kind == .video { return awaitingKeyframe ? .waitingForKeyframe : .live }
        // Audio has no keyframes: it is heard from its first decoded packet.
        return decodedSinceStart ? .live : .noPackets
    }

    /// Adds this stream's packets to the input's counters.
    public func count(into total: inout PacketCounters) {
        let reorder = reorderStatistics
        total.received += reorder.received
        total.lost += reorder.lost
        total.reordered += reorder.reordered
        total.late += reorder.late + reorder.duplicates
        // Packets of a would-be new sender on probation are not refused: they are adopted with
        // it, or were a stray that proved nothing. A source refusal is not malformed.
        total.add(refused: Dictionary(refused.map { ($0.key.rawValue, $0.value) }, uniquingKeysWith: +),
                  depacketizerMalformed: depacketizerStatistics.malformedPackets)
        total.senderRestarts += reorder.restarts
    }
}
