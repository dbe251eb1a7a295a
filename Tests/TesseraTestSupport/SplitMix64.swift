/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and good enough to drive a fuzzer; the tests'
/// one seeded generator (the RTP fuzzer and jitter, the SEI round trips), here because test
/// targets share no code.
public struct SplitMix64: Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    public mutating func oneIn(_ odds: Int) -> Bool { below(odds) == 0 }
    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    /// Eight bytes per step, copied out at once: the fuzzer asks for kilobytes at a time.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var words: [UInt64] = []
        words.reserveCapacity(count / 8 + 1)
        for _ in 0...count / 8 { words.append(next()) }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }
}
