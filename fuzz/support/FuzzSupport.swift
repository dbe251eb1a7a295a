/// Helpers every fuzz target is compiled with (see scripts/fuzz.sh): reading libFuzzer's input,
/// and stopping loudly when a property fails, so libFuzzer records the input as a crash.

/// The input libFuzzer hands over, copied into an array.
func fuzzBytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// A property of the parser that must hold for every input; a violation is a finding like a trap.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("fuzz property violated: \(message())", file: file, line: line) }
}

/// Reads an input front to back in pieces; what runs out reads as zero or empty, never traps.
struct FuzzReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { max(0, bytes.count - offset) }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return Array(bytes[min(offset, end)..<end])
    }

    mutating func rest() -> [UInt8] { take(remaining) }
}
