/// Reads and writes H.264 SEI NAL units (type 6): emulation-prevention bytes removed on read and
/// inserted on write; payload type and size coded as runs of 0xFF plus a last byte (D.1);
/// `rbsp_trailing_bits` (a 1 bit, then zeros to the byte) at the end.
public enum SEICodec {
    /// The messages of one SEI NAL unit (`nal` starts at its header byte). A message whose
    /// declared size runs past the unit ends the list: what came before it is kept.
    public static func messages(inNAL nal: UnsafeRawBufferPointer) -> [SEIMessage] {
        guard nal.count > 1, nal[0] & 0x1F == H264NALUnits.seiType else { return [] }
        let rbsp = removingEmulationPrevention(UnsafeRawBufferPointer(rebasing: nal[1...]))
        var messages: [SEIMessage] = []
        var i = 0
        // More messages while more than the trailing bits remain (the last byte is 0x80).
        while i < rbsp.count, !(i == rbsp.count - 1 && rbsp[i] == 0x80) {
            guard let type = readCoded(rbsp, &i), let size = readCoded(rbsp, &i), i + size <= rbsp.count else { break }
            messages.append(SEIMessage(payloadType: type, payload: Array(rbsp[i..<(i + size)])))
            i += size
        }
        return messages
    }

    /// Every SEI message in an access unit (any framing).
    public static func messages(inAccessUnit data: UnsafeRawBufferPointer) -> [SEIMessage] {
        var messages: [SEIMessage] = []
        for unit in H264NALUnits.units(in: data) where unit.type == H264NALUnits.seiType {
            messages += self.messages(inNAL: UnsafeRawBufferPointer(rebasing: data[unit.start..<unit.end]))
        }
        return messages
    }

    /// One SEI NAL unit (header byte `0x06`, nal_ref_idc 0) carrying `messages`, ready to frame.
    public static func nal(_ messages: [SEIMessage]) -> [UInt8] {
        var rbsp: [UInt8] = []
        for message in messages {
            writeCoded(message.payloadType, into: &rbsp)
            writeCoded(message.payload.count, into: &rbsp)
            rbsp += message.payload
        }
        rbsp.append(0x80)
        return [H264NALUnits.seiType] + addingEmulationPrevention(rbsp)
    }

    /// `ff_byte` runs: 255 per 0xFF, then the remainder.
    private static func readCoded(_ bytes: [UInt8], _ i: inout Int) -> Int? {
        var value = 0
        while i < bytes.count {
            let byte = bytes[i]
            i += 1
            value += Int(byte)
            if byte != 0xFF { return value }
        }
        return nil
    }

    private static func writeCoded(_ value: Int, into bytes: inout [UInt8]) {
        var rest = value
        while rest >= 255 { bytes.append(0xFF); rest -= 255 }
        bytes.append(UInt8(rest))
    }

    /// `00 00 03` → `00 00` (the 03 was added so the payload never looks like a start code).
    public static func removingEmulationPrevention(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var zeros = 0
        for byte in data {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// After two zero bytes, a byte of 0–3 gets an `03` before it.
    public static func addingEmulationPrevention(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 { out.append(3); zeros = 0 }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
