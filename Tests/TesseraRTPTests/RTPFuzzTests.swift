import Foundation
import Testing
import TesseraRTP

/// Random datagrams and mutated valid ones through `RTPPacket.parse` and every depacketizer, for
/// a fixed time (TESSERA_FUZZ_SECONDS, default 2). Deterministic per seed (TESSERA_FUZZ_SEED,
/// default random); the seed is printed, and named in any failure, to replay it.
@Suite struct RTPFuzzTests {
    @Test func garbageNeverBreaksADepacketizerAndCleanKeyframesStillComeOut() {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["TESSERA_FUZZ_SECONDS"].flatMap(Double.init) ?? 2
        let seed = environment["TESSERA_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var fuzzer = RTPFuzzer(seed: seed)
        var harnesses = FuzzHarnesses()
        let clock = ContinuousClock(), started = clock.now, deadline = started + .milliseconds(Int(seconds * 1000))
        var datagrams = 0, parsed = 0
        while harnesses.failure == nil {
            if datagrams % 1024 == 0 && clock.now >= deadline { break }
            datagrams += 1
            fuzzer.maybeAnnounceLossOrReset(&harnesses)
            if case .success(let packet) = RTPPacket.parse(fuzzer.nextDatagram()) {
                parsed += 1
                harnesses.push(packet)
            }
        }
        if harnesses.failure == nil { harnesses.checkCleanKeyframes(after: fuzzer.timestamp) }
        let duration = clock.now - started
        let elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        print("fuzz: \(datagrams) packets in \(String(format: "%.1f", elapsed)) s (\(Int(Double(datagrams) / elapsed))/s, "
              + "\(parsed) parsed as RTP), seed \(seed); frames/malformed/dropped: \(harnesses.summary)")
        if let failure = harnesses.failure {
            Issue.record("\(failure) (after \(datagrams) datagrams; replay with TESSERA_FUZZ_SEED=\(seed))")
        }
    }
}

/// One depacketizer under fuzzing, with what it was given and what it handed out.
struct FuzzHarness<Depacketizer: RTPDepacketizer> {
    var depacketizer: Depacketizer
    let name: String
    let maxFrameBytes: Int
    let isVideo: Bool
    var pushed: Int64 = 0
    var emitted: Int64 = 0

    var summary: String {
        let statistics = depacketizer.statistics
        return "\(name) \(statistics.frames)/\(statistics.malformedPackets)/\(statistics.droppedFrames)"
    }

    /// A complaint, or nil if every frame is non-empty and within bounds.
    mutating func push(_ packet: RTPPacket) -> String? {
        pushed += 1
        let frames = depacketizer.push(packet, arrivalMicroseconds: pushed)
        emitted += Int64(frames.count)
        if let bad = frames.first(where: { $0.data.isEmpty || $0.data.count > maxFrameBytes }) {
            return "\(name): emitted a frame of \(bad.data.count) bytes (limit \(maxFrameBytes))"
        }
        return statisticsComplaint()
    }

    /// Every frame counted once; every refused packet and dropped frame backed by pushed packets.
    func statisticsComplaint() -> String? {
        let statistics = depacketizer.statistics
        let consistent = statistics.frames == emitted && statistics.malformedPackets <= pushed
            && statistics.droppedFrames <= pushed && (!isVideo || statistics.frames + statistics.droppedFrames <= pushed)
        return consistent ? nil : "\(name): statistics \(statistics) do not add up for \(pushed) packets, \(emitted) frames"
    }

    /// Pushes a clean sequence; a complaint unless exactly `expected` comes out. H.264 may end an
    /// access unit by a new timestamp alone (receivers commonly do, for senders that omit the marker bit), so the
    /// garbage's last access unit may come out first there; VP8 and VP9 mark every frame's end.
    mutating func expect(_ expected: [[UInt8]], from packets: [RTPPacket], allowingLeftover: Bool = false) -> String? {
        var frames: [[UInt8]] = []
        for packet in packets {
            pushed += 1
            let out = depacketizer.push(packet, arrivalMicroseconds: pushed)
            emitted += Int64(out.count)
            frames += out.map(\.data)
        }
        if allowingLeftover && frames.count == expected.count + 1 { frames.removeFirst() }
        guard frames == expected else { return "\(name): after the garbage, \(frames.count) clean frames came out of \(expected.count)" }
        return statisticsComplaint()
    }
}

/// All five depacketizers fed the same packets. Video limits are small so oversized NAL units and
/// frames are easy to reach.
struct FuzzHarnesses {
    static let videoLimit = 16 << 10
    var h264 = FuzzHarness(depacketizer: H264Depacketizer(parameterSets: [TestNAL.sps, TestNAL.pps], maxFrameBytes: videoLimit),
                           name: "H.264", maxFrameBytes: videoLimit, isVideo: true)
    var vp8 = FuzzHarness(depacketizer: VP8Depacketizer(maxFrameBytes: videoLimit), name: "VP8", maxFrameBytes: videoLimit, isVideo: true)
    var vp9 = FuzzHarness(depacketizer: VP9Depacketizer(maxFrameBytes: videoLimit), name: "VP9", maxFrameBytes: videoLimit, isVideo: true)
    var aac = FuzzHarness(depacketizer: AACDepacketizer(), name: "AAC", maxFrameBytes: 8191, isVideo: false)
    var audio = FuzzHarness(depacketizer: WholePacketDepacketizer(), name: "whole packet", maxFrameBytes: 65_535, isVideo: false)
    var failure: String?

    mutating func push(_ packet: RTPPacket) {
        failure = failure ?? h264.push(packet) ?? vp8.push(packet) ?? vp9.push(packet) ?? aac.push(packet) ?? audio.push(packet)
    }

    /// Frames / malformed / dropped per depacketizer, to see the garbage reached every path.
    var summary: String {
        [h264.summary, vp8.summary, vp9.summary, aac.summary, audio.summary].joined(separator: ", ")
    }

    mutating func packetsLost() {
        h264.depacketizer.packetsLost(); vp8.depacketizer.packetsLost(); vp9.depacketizer.packetsLost()
        aac.depacketizer.packetsLost(); audio.depacketizer.packetsLost()
    }

    mutating func reset() {
        h264.depacketizer.reset(); vp8.depacketizer.reset(); vp9.depacketizer.reset()
        aac.depacketizer.reset(); audio.depacketizer.reset()
    }

    /// With no loss announced and no reset, a clean keyframe at a new timestamp must come out.
    mutating func checkCleanKeyframes(after timestamp: UInt32) {
        var stream = TestRTPStream()
        let t = timestamp &+ 1_000_000
        let idr = [TestNAL.sps, TestNAL.pps, TestNAL.idr(9000)], vp8Frame = [0x10] + testBytes(4000, seed: 3)
        let vp9Frame = testBytes(4000, seed: 4), units = [testBytes(300, seed: 5), testBytes(200, seed: 6)]
        failure = h264.expect([TestPacketizer.annexB(idr)], from: stream.packets(TestPacketizer.h264(idr), timestamp: t),
                             allowingLeftover: true)
            ?? vp8.expect([vp8Frame], from: stream.packets(TestPacketizer.vp8(vp8Frame, pictureID: 9), timestamp: t))
            ?? vp9.expect([vp9Frame], from: stream.packets(TestPacketizer.vp9(vp9Frame, keyframe: true), timestamp: t))
            ?? aac.expect(units, from: stream.packets([TestPacketizer.aac(units)], timestamp: t))
            ?? audio.expect([[0xFC, 1, 2]], from: stream.packets([[0xFC, 1, 2]], timestamp: t))
    }
}
