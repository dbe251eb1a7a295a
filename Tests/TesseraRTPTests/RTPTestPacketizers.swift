import TesseraRTP

/// Reference packetizers: the sender side of each payload format, written from the RFCs so the
/// depacketizers are checked against an independent implementation, byte for byte.
enum TestPacketizer {
    static let startCode: [UInt8] = [0, 0, 0, 1]

    /// H.264 (RFC 6184 mode 1): leading SPS and PPS in one STAP-A, NAL units up to `mtu` alone,
    /// larger ones as FU-A fragments of at most `mtu` bytes.
    static func h264(_ nals: [[UInt8]], mtu: Int = 1200, aggregateParameterSets: Bool = true) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var rest = nals[...]
        let parameterSets = nals.prefix { [7, 8].contains($0[0] & 0x1F) }
        if aggregateParameterSets && parameterSets.count >= 2 {
            var aggregate: [UInt8] = [parameterSets.map { $0[0] & 0x60 }.max()! | 24]
            for nal in parameterSets { aggregate += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
            payloads.append(aggregate)
            rest = rest.dropFirst(parameterSets.count)
        }
        for nal in rest {
            guard nal.count > mtu else { payloads.append(nal); continue }
            let body = nal[1...]
            let chunks = stride(from: body.startIndex, to: body.endIndex, by: mtu - 2).map {
                body[$0..<min($0 + mtu - 2, body.endIndex)]
            }
            for (index, chunk) in chunks.enumerated() {
                let start: UInt8 = index == 0 ? 0x80 : 0, end: UInt8 = index == chunks.count - 1 ? 0x40 : 0
                payloads.append([nal[0] & 0xE0 | 28, start | end | nal[0] & 0x1F] + chunk)
            }
        }
        return payloads
    }

    static func annexB(_ nals: [[UInt8]]) -> [UInt8] { nals.flatMap { startCode + $0 } }

    /// VP8 (RFC 7741): optional extended picture id (7 bits below 128, else 15), and optionally
    /// TL0PICIDX and the TID/KEYIDX byte.
    static func vp8(_ frame: [UInt8], pictureID: Int? = nil, layerFields: Bool = false, mtu: Int = 1200) -> [[UInt8]] {
        var descriptor: [UInt8] = [0]
        if pictureID != nil || layerFields {
            descriptor[0] |= 0x80
            var extensions: UInt8 = 0
            var fields: [UInt8] = []
            if let pictureID {
                extensions |= 0x80
                fields += pictureID < 128 ? [UInt8(pictureID)] : [0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
            }
            if layerFields { extensions |= 0x70; fields += [0x2A, 0x45] }
            descriptor += [extensions] + fields
        }
        return chunks(frame, size: mtu - descriptor.count).enumerated().map { index, chunk in
            var header = descriptor
            if index == 0 { header[0] |= 0x10 }
            return header + chunk
        }
    }

    /// VP9 (RFC 9628), one spatial layer: 15-bit picture id, non-flexible layer indices with
    /// TL0PICIDX, and on keyframes a scalability structure (size and one picture group entry).
    static func vp9(_ frame: [UInt8], keyframe: Bool, pictureID: Int = 300, mtu: Int = 1200) -> [[UInt8]] {
        let pieces = chunks(frame, size: mtu - 16)
        return pieces.enumerated().map { index, chunk in
            var flags: UInt8 = 0x80 | 0x20  // I, L
            if !keyframe { flags |= 0x40 }
            if index == 0 { flags |= 0x08 }
            if index == pieces.count - 1 { flags |= 0x04 }
            var header: [UInt8] = [flags, 0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF), 0x00, 0x07]
            if keyframe && index == 0 {
                header[0] |= 0x02
                header += [0x18, 0x02, 0x80, 0x01, 0x68, 0x01, 0x04, 0x01]  // 640×360, 1 picture, 1 P_DIFF
            }
            return header + chunk
        }
    }

    /// RFC 3640 AAC-hbr: 13-bit AU-size, 3-bit AU-Index(-delta) of 0, then the AUs.
    static func aac(_ units: [[UInt8]]) -> [UInt8] {
        let headerBits = 16 * units.count
        var payload: [UInt8] = [UInt8(headerBits >> 8), UInt8(headerBits & 0xFF)]
        for unit in units { payload += auHeader(size: unit.count) }
        return payload + units.flatMap { $0 }
    }

    /// One AU split over packets; each fragment's AU header carries the whole AU's size.
    static func aacFragments(_ unit: [UInt8], mtu: Int) -> [[UInt8]] {
        chunks(unit, size: mtu - 4).map { [0x00, 0x10] + auHeader(size: unit.count) + $0 }
    }

    static func auHeader(size: Int) -> [UInt8] { [UInt8(size >> 5), UInt8(size << 3 & 0xF8)] }

    static func chunks(_ bytes: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
    }
}

/// A sender: numbers packets and puts the marker on each frame's last packet.
struct TestRTPStream {
    var sequenceNumber: UInt16 = 1000
    var ssrc: UInt32 = 0x1234_5678
    var payloadType: UInt8 = 96

    mutating func packets(_ payloads: [[UInt8]], timestamp: UInt32, marker: Bool = true) -> [RTPPacket] {
        payloads.enumerated().map { index, payload in
            defer { sequenceNumber &+= 1 }
            return RTPPacket(payloadType: payloadType, marker: marker && index == payloads.count - 1,
                             sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, payload: payload)
        }
    }
}

extension RTPDepacketizer {
    /// Pushes packets in order, arrival = sequence number, and gathers what comes out.
    mutating func push(_ packets: [RTPPacket]) -> [EncodedMediaFrame] {
        packets.flatMap { push($0, arrivalMicroseconds: Int64($0.sequenceNumber)) }
    }
}

/// Deterministic filler bytes (an LCG), so frames differ from one another.
func testBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

/// H.264 NAL units for tests: a slice's first body byte has its top bit set (first_mb_in_slice 0).
enum TestNAL {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0x8C, 0x8D, 0x40, 0x50, 0x1E, 0xD0]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let aud: [UInt8] = [0x09, 0xF0]
    static func idr(_ size: Int, seed: UInt64 = 1) -> [UInt8] { [0x65, 0x88] + testBytes(size - 2, seed: seed) }
    static func slice(_ size: Int, seed: UInt64 = 2) -> [UInt8] { [0x41, 0x9A] + testBytes(size - 2, seed: seed) }
}
