/// The header extension of an RTP packet (RFC 3550 §5.3.1) and the elements inside it in the two
/// general forms of RFC 8285 §4: one-byte headers (profile 0xBEDE) and two-byte headers (profile
/// 0x100 in the top 12 bits, 4 application bits below).
///
/// The packet keeps the extension's bytes as they came; elements are looked up by id on demand,
/// so packets of streams that use no extension pay nothing beyond the copy.
public struct RTPHeaderExtension: Sendable, Equatable {
    /// The 16-bit "defined by profile" field.
    public var profile: UInt16
    /// The extension's data words (a multiple of 4 bytes as read from a packet).
    public var data: [UInt8]

    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile; self.data = data
    }

    public static let oneByteProfile: UInt16 = 0xBEDE

    /// Whether the elements use RFC 8285's one-byte or two-byte headers (else: not RFC 8285).
    public var isOneByte: Bool { profile == Self.oneByteProfile }
    public var isTwoByte: Bool { profile & 0xFFF0 == 0x1000 }

    /// The data of the first element with `id`, or nil when there is none, the extension is not
    /// RFC 8285, or an element runs past the end (everything from there on is distrusted).
    ///
    /// One-byte: `ID(4) L(4)` then L+1 bytes; ID 0 is a padding byte; ID 15 ends the list.
    /// Two-byte: `ID(8) length(8)` then `length` bytes (may be 0); ID 0 is a padding byte.
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        guard id != 0 else { return nil }
        var offset = 0
        if isOneByte {
            guard id < 15 else { return nil }
            while offset < data.count {
                let elementID = data[offset] >> 4
                if elementID == 0 { offset += 1; continue }
                if elementID == 15 { return nil }
                let length = Int(data[offset] & 0x0F) + 1
                let start = offset + 1
                guard start + length <= data.count else { return nil }
                if elementID == id { return data[start..<(start + length)] }
                offset = start + length
            }
        } else if isTwoByte {
            while offset < data.count {
                let elementID = data[offset]
                if elementID == 0 { offset += 1; continue }
                guard offset + 2 <= data.count else { return nil }
                let length = Int(data[offset + 1])
                let start = offset + 2
                guard start + length <= data.count else { return nil }
                if elementID == id { return data[start..<(start + length)] }
                offset = start + length
            }
        }
        return nil
    }

    /// An extension holding `elements` (id, data) in the one-byte form (ids 1–14, 1–16 bytes
    /// each), padded to whole words: for tests and tools.
    public static func oneByte(_ elements: [(id: UInt8, data: [UInt8])]) -> RTPHeaderExtension {
        var bytes: [UInt8] = []
        for element in elements {
            precondition((1...14).contains(element.id) && (1...16).contains(element.data.count))
            bytes.append(element.id << 4 | UInt8(element.data.count - 1))
            bytes += element.data
        }
        while bytes.count % 4 != 0 { bytes.append(0) }
        return RTPHeaderExtension(profile: oneByteProfile, data: bytes)
    }

    /// The same in the two-byte form (ids 1–255, 0–255 bytes each).
    public static func twoByte(_ elements: [(id: UInt8, data: [UInt8])], appBits: UInt8 = 0) -> RTPHeaderExtension {
        var bytes: [UInt8] = []
        for element in elements {
            precondition(element.id != 0 && element.data.count <= 255)
            bytes += [element.id, UInt8(element.data.count)] + element.data
        }
        while bytes.count % 4 != 0 { bytes.append(0) }
        return RTPHeaderExtension(profile: 0x1000 | UInt16(appBits & 0x0F), data: bytes)
    }
}
