/// Comparison whose time does not depend on where two secrets first differ, so a caller cannot
/// guess a bearer token byte by byte from response times.
enum ConstantTime {
    static func equals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }

    /// Walks the longer of the two whole, whatever the bytes; the length difference is folded into
    /// the result instead of returning early.
    static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        let count = max(lhs.count, rhs.count)
        var difference: UInt = lhs.count == rhs.count ? 0 : 1
        for index in 0..<count {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= UInt(left ^ right)
        }
        return difference == 0
    }
}
