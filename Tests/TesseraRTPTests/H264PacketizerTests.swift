import Testing
import TesseraRTP

@Suite struct H264PacketizerTests {
    /// Annex B with a 4-byte start code before the first NAL unit and 3-byte ones after, as libx264 writes.
    static func annexB(_ nals: [[UInt8]]) -> [UInt8] {
        nals.enumerated().flatMap { index, nal in (index == 0 ? [0, 0, 0, 1] : [0, 0, 1]) + nal }
    }

    /// Filler with no zero bytes, so it never holds a start code (a real NAL unit has emulation
    /// prevention bytes for that).
    static func body(_ count: Int, seed: UInt64) -> [UInt8] { testBytes(count, seed: seed).map { max($0, 1) } }
    static let sps = TestNAL.sps, pps = TestNAL.pps
    static let sei: [UInt8] = [0x06, 0x05, 0x02, 0xAA, 0xBB, 0x80]
    static func idr(_ size: Int) -> [UInt8] { [0x65, 0x88] + body(size - 2, seed: 7) }
    static func slice(_ size: Int) -> [UInt8] { [0x41, 0x9A] + body(size - 2, seed: 8) }

    // MARK: - pion/rtp codecs/h264_packet_test.go vectors

    @Test func pionFUAVector() {
        let largePayload: [UInt8] = [0x00, 0x00, 0x01, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                     0x08, 0x09, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15]
        let expected: [[UInt8]] = [
            [0x1c, 0x80, 0x01, 0x02, 0x03],
            [0x1c, 0x00, 0x04, 0x05, 0x06],
            [0x1c, 0x00, 0x07, 0x08, 0x09],
            [0x1c, 0x00, 0x10, 0x11, 0x12],
            [0x1c, 0x40, 0x13, 0x14, 0x15],
        ]
        #expect(H264Packetizer(maxPayloadSize: 5).payloads(accessUnit: largePayload) == expected)
    }

    @Test func pionSmallAndMultipleNALVectors() {
        let packetizer = H264Packetizer(maxPayloadSize: 5)
        // No start code at all: the buffer is one NAL unit.
        #expect(packetizer.payloads(accessUnit: [0x90, 0x90, 0x90]) == [[0x90, 0x90, 0x90]])
        // Two 1-byte units do not fit a 5-byte STAP-A (1 + 2 × 3 bytes), so each goes alone.
        #expect(packetizer.payloads(accessUnit: [0x00, 0x00, 0x01, 0x90, 0x00, 0x00, 0x01, 0x90]) == [[0x90], [0x90]])
        let mixed: [UInt8] = [0x00, 0x00, 0x01, 0x90, 0x00, 0x00, 0x00, 0x01, 0x90,
                              0x00, 0x00, 0x01, 0x90, 0x00, 0x00, 0x00, 0x01, 0x90]
        #expect(packetizer.payloads(accessUnit: mixed) == [[0x90], [0x90], [0x90], [0x90]])
        #expect(packetizer.payloads(accessUnit: []).isEmpty)
        #expect(packetizer.payloads(accessUnit: [0x00, 0x00, 0x01]).isEmpty)
        #expect(packetizer.payloads(accessUnit: [0x09, 0x00, 0x00]).isEmpty)  // AUD
    }

    /// pion aggregates SPS and PPS into `78 0003 070001 0003 080203` and sends the IDR after it.
    /// Here the IDR is kept out of the aggregate by the size limit; the STAP-A header differs in
    /// one place: pion always writes NRI 3 (0x78), RFC 6184 §5.7.1 asks for the largest NRI of the
    /// units, which is 0 for these headers (0x18). With NRI-3 headers the bytes are pion's.
    @Test func pionSTAPAVector() {
        let packetizer = H264Packetizer(maxPayloadSize: 11)
        let au = Self.annexB([[0x07, 0x00, 0x01], [0x08, 0x02, 0x03], [0x05, 0x04, 0x05]])
        #expect(packetizer.payloads(accessUnit: au) == [
            [0x18, 0x00, 0x03, 0x07, 0x00, 0x01, 0x00, 0x03, 0x08, 0x02, 0x03], [0x05, 0x04, 0x05]])
        let withImportance = Self.annexB([[0x67, 0x00, 0x01], [0x68, 0x02, 0x03], [0x65, 0x04, 0x05]])
        #expect(packetizer.payloads(accessUnit: withImportance) == [
            [0x78, 0x00, 0x03, 0x67, 0x00, 0x01, 0x00, 0x03, 0x68, 0x02, 0x03], [0x65, 0x04, 0x05]])
    }

    // MARK: - Payload structures

    @Test func fragmentsKeepNRIAndType() {
        let nal = Self.idr(3000)
        let payloads = H264Packetizer().payloads(accessUnit: Self.annexB([nal]))
        // 2999 body bytes in pieces of 1198.
        #expect(payloads.map(\.count) == [1200, 1200, 605])
        #expect(payloads.map { $0[0] } == [0x7C, 0x7C, 0x7C])
        #expect(payloads.map { $0[1] } == [0x85, 0x05, 0x45])
        #expect(payloads.flatMap { $0.dropFirst(2) } == Array(nal.dropFirst()))
    }

    @Test func aggregatesRunsOfSmallUnitsInOrder() {
        let packetizer = H264Packetizer(maxPayloadSize: 100)
        let small = [Self.slice(40), Self.slice(30), Self.slice(20), [0x01, 0x02] + Self.body(60, seed: 3)]
        let payloads = packetizer.payloads(accessUnit: Self.annexB(small))
        // 1 + 42 + 32 = 75, + 22 = 97 fit; the 62-byte unit then goes alone.
        #expect(payloads.count == 2)
        #expect(payloads[0] == [0x58, 0, 40] + small[0] + [0, 30] + small[1] + [0, 20] + small[2])
        #expect(payloads[1] == small[3])
    }

    @Test func aggregateFBitIsTheUnitsOr() {
        let payloads = H264Packetizer().payloads(accessUnit: Self.annexB([[0x06, 0x01], [0x81, 0x02]]))
        #expect(payloads == [[0x98, 0, 2, 0x06, 0x01, 0, 2, 0x81, 0x02]])
    }

    @Test func dropsDelimitersFillerAndTrailingZeros() {
        let au: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1, 0x41, 0xAA, 0, 0, 1, 0x0C, 0xFF, 0xFF,
                           0, 0, 1, 0x41, 0xBB, 0, 0]
        #expect(H264Packetizer().payloads(accessUnit: au) == [[0x58, 0, 2, 0x41, 0xAA, 0, 2, 0x41, 0xBB]])
    }

    @Test func everyPayloadFitsTheLimit() {
        for limit in [3, 4, 7, 50, 1200] {
            let packetizer = H264Packetizer(maxPayloadSize: limit)
            let au = Self.annexB([Self.sps, Self.pps, Self.sei, Self.idr(2500), Self.slice(3)])
            #expect(packetizer.payloads(accessUnit: au).allSatisfy { $0.count <= limit }, "limit \(limit)")
        }
    }

    // MARK: - Parameter sets

    @Test func extradataParameterSetsGoAheadOfAnIDRWithoutThem() {
        let extradata = [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0]
        let parameterSets = extradata.withUnsafeBytes { H264Packetizer.parameterSets(annexB: $0) }
        #expect(parameterSets == [Self.sps, Self.pps])
        let packetizer = H264Packetizer()
        let idr = Self.idr(100)
        let keyframe = packetizer.payloads(accessUnit: Self.annexB([Self.sei, idr]), parameterSets: parameterSets)
        #expect(keyframe == [[0x78, 0, 10] + Self.sps + [0, 4] + Self.pps + [0, 6] + Self.sei + [0, 100] + idr])
        // A delta frame gets none; a keyframe that has its own keeps them and gets no second copy.
        let delta = packetizer.payloads(accessUnit: Self.annexB([Self.slice(100)]), parameterSets: parameterSets)
        #expect(delta == [Self.slice(100)])
        let complete = packetizer.payloads(accessUnit: Self.annexB([Self.sps, Self.pps, idr]), parameterSets: [[0x67, 9], [0x68, 9]])
        #expect(complete == [[0x78, 0, 10] + Self.sps + [0, 4] + Self.pps + [0, 100] + idr])
    }

    @Test func aMissingPPSGoesAfterTheSPSTheUnitHas() {
        let au = Self.annexB([Self.sps, Self.idr(2000)])
        let payloads = H264Packetizer().payloads(accessUnit: au, parameterSets: [[0x67, 0x01], Self.pps])
        #expect(payloads[0] == [0x78, 0, 10] + Self.sps + [0, 4] + Self.pps)
        #expect(payloads.count == 3 && payloads[1][0] == 0x7C)
    }

    @Test func keyframeDetection() {
        let idr = Self.annexB([Self.sps, Self.pps, Self.idr(50)]), delta = Self.annexB([Self.slice(50)])
        #expect(idr.withUnsafeBytes { H264Packetizer.isKeyframe(accessUnit: $0) })
        #expect(!delta.withUnsafeBytes { H264Packetizer.isKeyframe(accessUnit: $0) })
    }

    // MARK: - Round trip

    /// Through RTPStreamSender, RTPPacket.parse and H264Depacketizer: the access units come back
    /// as sent, with the delimiter gone and 4-byte start codes (what the depacketizer writes).
    @Test func roundTripsThroughTheDepacketizer() throws {
        let packetizer = H264Packetizer()
        var sender = RTPStreamSender(ssrc: 0xCAFE, payloadType: 96, clockRate: 90_000, initialSequence: 65_530, timestampOffset: 12_345)
        var depacketizer = H264Depacketizer()
        let accessUnits: [[[UInt8]]] = [[TestNAL.aud, Self.sps, Self.pps, Self.sei, Self.idr(5000)],
                                        [TestNAL.aud, Self.slice(700)], [TestNAL.aud, Self.slice(1800), Self.slice(300)]]
        var frames: [EncodedMediaFrame] = []
        for (index, nals) in accessUnits.enumerated() {
            let datagrams = sender.packets(payloads: packetizer.payloads(accessUnit: Self.annexB(nals)),
                                           mediaTime: Int64(index) * 3000, marker: true)
            for datagram in datagrams {
                frames += depacketizer.push(try RTPPacket.parse(datagram).get(), arrivalMicroseconds: 0)
            }
        }
        #expect(frames.map(\.data) == accessUnits.map { TestPacketizer.annexB(Array($0.dropFirst())) })
        #expect(frames.map(\.isKeyframe) == [true, false, false])
        #expect(frames.map(\.rtpTimestamp) == [12_345, 15_345, 18_345])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 3))
    }
}
