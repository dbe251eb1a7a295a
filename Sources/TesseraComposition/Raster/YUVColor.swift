/// A colour as the output's Y'CbCr (BT.709, limited range) code values, with an 8-bit alpha.
/// Layout colours are converted once, so `#FF0000` decodes back as red.
public struct YUVColor: Codable, Sendable, Equatable, Hashable {
    public var y: UInt8
    public var u: UInt8
    public var v: UInt8
    public var alpha: UInt8
    public init(y: UInt8, u: UInt8, v: UInt8, alpha: UInt8 = 255) { self.y = y; self.u = u; self.v = v; self.alpha = alpha }

    public static let black = YUVColor(y: 16, u: 128, v: 128)

    /// BT.709 limited-range code values of gamma-encoded 8-bit R'G'B'.
    /// Y' = 16 + 219·(0.2126 R' + 0.7152 G' + 0.0722 B'); Cb, Cr = 128 + 224·(B' − Y')/1.8556, (R' − Y')/1.5748.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let cb = (b - luma) / 1.8556, cr = (r - luma) / 1.5748
        func code(_ value: Double) -> UInt8 { UInt8(max(0, min(255, (value).rounded()))) }
        self.init(y: code(16 + 219 * luma), u: code(128 + 224 * cb), v: code(128 + 224 * cr), alpha: alpha)
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (case-insensitive); nil for anything else.
    public init?(hex: String) {
        guard hex.hasPrefix("#") else { return nil }
        let digits = hex.dropFirst()
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
              let value = UInt32(digits, radix: 16) else { return nil }
        if digits.count == 6 {
            self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        } else {
            self.init(red: UInt8(value >> 24 & 0xFF), green: UInt8(value >> 16 & 0xFF),
                      blue: UInt8(value >> 8 & 0xFF), alpha: UInt8(value & 0xFF))
        }
    }
}
