import Testing
import TesseraRTP
import TesseraMedia

/// SRTPSession against itself (libsrtp both ways): every suite round trips RTP and RTCP, and a
/// receiver refuses what it must (tampering, a wrong key, replays) while taking what a real
/// sender does (several SSRCs, a restart).
@Suite struct SRTPSessionTests {
    typealias Packets = SRTPTestPackets

    static func pair(_ suite: SRTPSuite) throws -> (sender: SRTPSession, receiver: SRTPSession) {
        let key = Packets.key(suite)
        return (try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .outbound),
                try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .inbound))
    }

    @Test(arguments: SRTPSuite.allCases)
    func rtpRoundTrip(suite: SRTPSuite) throws {
        let (sender, receiver) = try Self.pair(suite)
        for sequence in UInt16(65_530)...UInt16(65_535) {
            let plain = Packets.rtp(ssrc: 0x1234_5678, sequence: sequence, timestamp: UInt32(sequence) * 960)
            let protected = try Packets.apply(plain, sender.protectRTP).get()
            #expect(protected.count == plain.count + suite.rtpTagLength)
            #expect(Array(protected[..<12]) == Array(plain[..<12]), "the header stays in the clear")
            #expect(protected[12..<plain.count] != plain[12...], "the payload is encrypted")
            #expect(try Packets.apply(protected, receiver.unprotectRTP).get() == plain)
        }
    }

    @Test(arguments: SRTPSuite.allCases)
    func rtcpRoundTrip(suite: SRTPSuite) throws {
        let (sender, receiver) = try Self.pair(suite)
        let plain = Packets.receiverReport(ssrc: 0x0102_0304)
        for _ in 0..<3 {
            let protected = try Packets.apply(plain, sender.protectRTCP).get()
            // E flag + 31-bit SRTCP index, then the tag (80 bits for both AES-CM suites).
            #expect(protected.count == plain.count + 4 + suite.rtcpTagLength)
            #expect(protected[plain.count] & 0x80 != 0, "E flag: encrypted")
            #expect(try Packets.apply(protected, receiver.unprotectRTCP).get() == plain)
        }
    }

    @Test(arguments: SRTPSuite.allCases)
    func aTamperedByteFailsAuthentication(suite: SRTPSuite) throws {
        let (sender, receiver) = try Self.pair(suite)
        let protected = try Packets.apply(Packets.rtp(ssrc: 9, sequence: 100), sender.protectRTP).get()
        for index in [1, 12, protected.count - 1] {  // header, payload, tag
            var tampered = protected
            tampered[index] ^= 0x01
            #expect(Packets.apply(tampered, receiver.unprotectRTP) == .failure(.authenticationFailed))
        }
        #expect(Packets.apply(Array(protected.dropLast()), receiver.unprotectRTP) == .failure(.authenticationFailed))
        #expect(try Packets.apply(protected, receiver.unprotectRTP).get() == Packets.rtp(ssrc: 9, sequence: 100),
                "failures leave the stream usable")
    }

    @Test(arguments: SRTPSuite.allCases)
    func aWrongKeyFailsAuthentication(suite: SRTPSuite) throws {
        let sender = try SRTPSession(suite: suite, masterKeyAndSalt: Packets.key(suite, seed: 1), direction: .outbound)
        let stranger = try SRTPSession(suite: suite, masterKeyAndSalt: Packets.key(suite, seed: 2), direction: .inbound)
        let protected = try Packets.apply(Packets.rtp(ssrc: 9, sequence: 1), sender.protectRTP).get()
        #expect(Packets.apply(protected, stranger.unprotectRTP) == .failure(.authenticationFailed))
        let report = try Packets.apply(Packets.receiverReport(ssrc: 9), sender.protectRTCP).get()
        #expect(Packets.apply(report, stranger.unprotectRTCP) == .failure(.authenticationFailed))
    }

    @Test func aReplayedPacketIsRefused() throws {
        let (sender, receiver) = try Self.pair(.aesCM128HMACSHA1_80)
        let protected = try Packets.apply(Packets.rtp(ssrc: 5, sequence: 7), sender.protectRTP).get()
        _ = try Packets.apply(protected, receiver.unprotectRTP).get()
        #expect(Packets.apply(protected, receiver.unprotectRTP) == .failure(.replayed))
    }

    /// A retransmission within the replay window is taken once; one from before it is too old.
    @Test func lateRetransmissionsWithinTheReplayWindowAreTaken() throws {
        let key = Packets.key(.aesCM128HMACSHA1_80)
        let sender = try SRTPSession(suite: .aesCM128HMACSHA1_80, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(suite: .aesCM128HMACSHA1_80, masterKeyAndSalt: key, direction: .inbound,
                                       replayWindowPackets: 64)
        let packets = try (UInt16(0)...200).map {
            try Packets.apply(Packets.rtp(ssrc: 5, sequence: $0), sender.protectRTP).get()
        }
        for (sequence, packet) in packets.enumerated() where sequence != 150 && sequence != 100 {
            _ = try Packets.apply(packet, receiver.unprotectRTP).get()
        }
        #expect(try Packets.apply(packets[150], receiver.unprotectRTP).get() == Packets.rtp(ssrc: 5, sequence: 150))
        #expect(Packets.apply(packets[100], receiver.unprotectRTP) == .failure(.tooOld))
    }

    /// Two senders (two SSRCs, sequence numbers far apart) interleaved through one receiver, as
    /// a stream and its `rtx` stream or a restarted sender are.
    @Test(arguments: SRTPSuite.allCases)
    func twoSSRCsThroughOneInboundSession(suite: SRTPSuite) throws {
        let key = Packets.key(suite)
        let first = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .outbound)
        let second = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .inbound)
        for step in UInt16(0)..<20 {
            let a = Packets.rtp(ssrc: 0xAAAA_0001, sequence: 40_000 &+ step)
            let b = Packets.rtp(ssrc: 0xBBBB_0002, sequence: 3 &+ step)
            #expect(try Packets.apply(Packets.apply(a, first.protectRTP).get(), receiver.unprotectRTP).get() == a)
            #expect(try Packets.apply(Packets.apply(b, second.protectRTP).get(), receiver.unprotectRTP).get() == b)
        }
    }

    /// A forged packet with a new SSRC is checked against the session's key before libsrtp adds
    /// a stream for it, so it cannot take the SSRC's place: the real sender's first packet with
    /// that SSRC is still accepted afterwards, whatever its sequence number.
    @Test func aForgedNewSSRCAddsNoStream() throws {
        let (sender, receiver) = try Self.pair(.aesCM128HMACSHA1_80)
        let forger = try SRTPSession(suite: .aesCM128HMACSHA1_80,
                                     masterKeyAndSalt: Packets.key(.aesCM128HMACSHA1_80, seed: 9),
                                     direction: .outbound)
        let forged = try Packets.apply(Packets.rtp(ssrc: 77, sequence: 5000), forger.protectRTP).get()
        #expect(Packets.apply(forged, receiver.unprotectRTP) == .failure(.authenticationFailed))
        let real = Packets.rtp(ssrc: 77, sequence: 10)
        #expect(try Packets.apply(Packets.apply(real, sender.protectRTP).get(), receiver.unprotectRTP).get() == real)
    }

    /// A sender that restarts with its old SSRC and new, lower sequence numbers looks like a
    /// replay to libsrtp until the receiver forgets the old stream.
    @Test func aRestartWithTheSameSSRCNeedsForgetSender() throws {
        let suite = SRTPSuite.aesCM128HMACSHA1_80, key = Packets.key(suite)
        let receiver = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .inbound)
        let before = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .outbound)
        for sequence in UInt16(30_000)..<30_010 {
            _ = try Packets.apply(Packets.apply(Packets.rtp(ssrc: 42, sequence: sequence), before.protectRTP).get(),
                                  receiver.unprotectRTP).get()
        }
        let after = try SRTPSession(suite: suite, masterKeyAndSalt: key, direction: .outbound)
        let restarted = Packets.rtp(ssrc: 42, sequence: 100)
        let protected = try Packets.apply(restarted, after.protectRTP).get()
        #expect(Packets.apply(protected, receiver.unprotectRTP) == .failure(.tooOld))
        #expect(receiver.forgetSender(ssrc: 42))
        #expect(try Packets.apply(protected, receiver.unprotectRTP).get() == restarted)
        #expect(!receiver.forgetSender(ssrc: 43), "no stream for an SSRC never seen")
    }

    @Test func protectNeedsTrailerRoom() throws {
        let (sender, _) = try Self.pair(.aesCM128HMACSHA1_80)
        var packet = Packets.rtp(ssrc: 1, sequence: 1) + [UInt8](repeating: 0, count: SRTPSession.rtpTrailerRoom - 1)
        let length = packet.count - (SRTPSession.rtpTrailerRoom - 1)
        let result = packet.withUnsafeMutableBytes { sender.protectRTP($0, length: length) }
        guard case .failure(.badParameter(let message)) = result else {
            Issue.record("expected badParameter, got \(result)")
            return
        }
        #expect(message == "protecting RTP: 52 bytes need a buffer of 196, got 195")
        #expect(SRTPSession.rtpTrailerRoom == 144 && SRTPSession.rtcpTrailerRoom == 148)
    }

    @Test func aTooShortPacketIsABadParameter() throws {
        let (_, receiver) = try Self.pair(.aesCM128HMACSHA1_80)
        let result = Packets.apply([0x80, 111, 0, 1], receiver.unprotectRTP)
        #expect(result == .failure(.badParameter("unprotecting RTP")))
    }

    @Test func keysOfTheWrongLengthAreRefused() {
        #expect(throws: SRTPError.badParameter("AEAD_AES_128_GCM needs 28 bytes of key and salt, got 30")) {
            try SRTPSession(suite: .aeadAES128GCM, masterKeyAndSalt: Packets.key(.aesCM128HMACSHA1_80), direction: .inbound)
        }
        #expect(throws: SRTPError.badParameter("replay window 32 is outside 64...32767 packets")) {
            try SRTPSession(suite: .aesCM128HMACSHA1_80, masterKeyAndSalt: Packets.key(.aesCM128HMACSHA1_80),
                            direction: .inbound, replayWindowPackets: 32)
        }
    }

    @Test func aSessionFromKeying() throws {
        let keying = try SRTPKeying(suite: .aesCM128HMACSHA1_32, masterKeyAndSalt: Packets.key(.aesCM128HMACSHA1_32))
        let receiver = try SRTPSession(keying: keying, direction: .inbound)
        #expect(receiver.suite == .aesCM128HMACSHA1_32 && receiver.direction == .inbound)
        #expect(receiver.replayWindowPackets == SRTPSession.defaultReplayWindowPackets)
    }
}
