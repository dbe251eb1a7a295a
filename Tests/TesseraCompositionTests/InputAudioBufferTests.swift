import Testing
import TesseraComposition

/// Planar test audio, appended through temporary pointers.
struct Planes {
    var channels: [[Float]]
    init(channels: Int, count: Int, value: (Int, Int) -> Float) {
        self.channels = (0..<channels).map { c in (0..<count).map { value(c, $0) } }
    }
    func append(to buffer: InputAudioBuffer, at position: Int64) {
        let pointers = channels.map { channel -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, channel.count))
            p.initialize(from: channel, count: channel.count)
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        buffer.append(pointers.map { UnsafePointer($0) }, count: channels[0].count, at: position)
    }
}

/// Reads `count` samples per channel at `position`; returns (samples per channel, copied count).
func readBlock(_ buffer: InputAudioBuffer, count: Int, at position: Int64) -> ([[Float]], Int) {
    let pointers = (0..<buffer.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
    defer { pointers.forEach { $0.deallocate() } }
    pointers.forEach { $0.initialize(repeating: .nan, count: count) }
    let copied = buffer.read(into: pointers, count: count, at: position)
    return (pointers.map { Array(UnsafeBufferPointer(start: $0, count: count)) }, copied)
}

/// What `InputAudioBufferTests.ramp` holds at timeline samples `range` of `channel`.
func rampValues(_ range: Range<Int>, channel: Int = 0) -> [Float] { range.map { Float(channel * 1000 + $0 + 1) } }

@Suite struct InputAudioBufferTests {
    /// Sample i of channel c is `c·1000 + i + 1` (never 0, so silence is visible).
    static func ramp(_ count: Int, from first: Int = 0, channels: Int = 2) -> Planes {
        Planes(channels: channels, count: count) { c, i in Float(c * 1000 + first + i + 1) }
    }

    @Test func contiguousBlocksReadBackExactly() {
        let buffer = InputAudioBuffer(channels: 2, sampleRate: 48000)
        Self.ramp(100).append(to: buffer, at: 0)
        Self.ramp(100, from: 100).append(to: buffer, at: 100)
        #expect(buffer.endPosition == 200 && buffer.bufferedSamples == 200)
        let (out, copied) = readBlock(buffer, count: 150, at: 0)
        #expect(copied == 150)
        #expect(out[0] == rampValues(0..<150))
        #expect(out[1] == rampValues(0..<150, channel: 1))
        #expect(buffer.bufferedSamples == 50)
        let (rest, restCopied) = readBlock(buffer, count: 100, at: 150)
        #expect(restCopied == 50)
        #expect(Array(rest[0][0..<50]) == rampValues(150..<200))
        #expect(Array(rest[0][50...]) == Array(repeating: 0, count: 50))
    }

    @Test func readBeforeAndAroundTheDataFillsZeros() {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 48000)
        Self.ramp(10, channels: 1).append(to: buffer, at: 1000)
        #expect(buffer.endPosition == 1010)
        let (early, none) = readBlock(buffer, count: 100, at: 0)
        #expect(none == 0 && early[0] == Array(repeating: 0, count: 100))
        let (around, copied) = readBlock(buffer, count: 20, at: 995)
        #expect(copied == 10)
        #expect(around[0] == Array(repeating: 0, count: 5) + rampValues(0..<10) + Array(repeating: 0, count: 5))
        #expect(buffer.bufferedSamples == 0)
    }

    @Test func readDiscardsEverythingBeforeItsEnd() {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 48000)
        Self.ramp(300, channels: 1).append(to: buffer, at: 0)
        _ = readBlock(buffer, count: 100, at: 100)       // skips 0..<100 and consumes up to 200
        #expect(buffer.bufferedSamples == 100)
        let (again, copied) = readBlock(buffer, count: 100, at: 0)
        #expect(copied == 0 && again[0] == Array(repeating: 0, count: 100))
        let (tail, tailCopied) = readBlock(buffer, count: 100, at: 200)
        #expect(tailCopied == 100 && tail[0][0] == 201)
    }

    @Test(arguments: [-960, -5, 1, 7, 960])
    func jitterWithinAFiftiethOfASecondIsContiguous(offset: Int) {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 48000)
        #expect(buffer.jitterToleranceSamples == 960)
        Self.ramp(2000, channels: 1).append(to: buffer, at: 0)
        Self.ramp(100, from: 2000, channels: 1).append(to: buffer, at: Int64(2000 + offset))
        #expect(buffer.endPosition == 2100)
        let (out, copied) = readBlock(buffer, count: 2100, at: 0)
        #expect(copied == 2100 && out[0] == rampValues(0..<2100))
    }

    @Test func aGapBecomesSilence() {
        let buffer = InputAudioBuffer(channels: 2, sampleRate: 8000)   // tolerance 160
        Self.ramp(100).append(to: buffer, at: 0)
        Self.ramp(100, from: 100).append(to: buffer, at: 500)
        #expect(buffer.endPosition == 600)
        let (out, _) = readBlock(buffer, count: 600, at: 0)
        #expect(Array(out[0][0..<100]) == rampValues(0..<100))
        #expect(Array(out[0][100..<500]) == Array(repeating: 0, count: 400))
        #expect(Array(out[1][500..<600]) == rampValues(100..<200, channel: 1))
    }

    @Test func anOverlapDropsTheRepeatedPart() {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 8000)
        Planes(channels: 1, count: 1000) { _, _ in 1 }.append(to: buffer, at: 0)
        Planes(channels: 1, count: 1000) { _, _ in 2 }.append(to: buffer, at: 500)
        #expect(buffer.endPosition == 1500)
        let (out, copied) = readBlock(buffer, count: 1500, at: 0)
        #expect(copied == 1500)
        #expect(Array(out[0][0..<1000]) == Array(repeating: 1, count: 1000))
        #expect(Array(out[0][1000...]) == Array(repeating: 2, count: 500))
        // A block wholly inside what was already appended adds nothing.
        Planes(channels: 1, count: 100) { _, _ in 3 }.append(to: buffer, at: 1000)
        #expect(buffer.endPosition == 1500)
    }

    @Test func memoryIsBoundedByDroppingTheOldest() {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 100)   // capacity 10 s = 1000 samples
        #expect(buffer.capacitySamples == 1000)
        for block in 0..<15 { Self.ramp(100, from: block * 100, channels: 1).append(to: buffer, at: Int64(block * 100)) }
        #expect(buffer.bufferedSamples == 1000 && buffer.endPosition == 1500)
        let (old, oldCopied) = readBlock(buffer, count: 500, at: 0)
        #expect(oldCopied == 0 && old[0].allSatisfy { $0 == 0 })
        let (kept, copied) = readBlock(buffer, count: 1000, at: 500)
        #expect(copied == 1000 && kept[0] == rampValues(500..<1500))
        // One block bigger than the ring keeps its newest samples.
        Self.ramp(2500, from: 1500, channels: 1).append(to: buffer, at: 1500)
        #expect(buffer.bufferedSamples == 1000 && buffer.endPosition == 4000)
        let (newest, _) = readBlock(buffer, count: 1000, at: 3000)
        #expect(newest[0] == rampValues(3000..<4000))
        // A gap longer than the ring.
        Self.ramp(10, from: 50000, channels: 1).append(to: buffer, at: 50000)
        #expect(buffer.endPosition == 50010 && buffer.bufferedSamples == 10)
    }

    @Test func wrapsAroundTheRingManyTimes() {
        let buffer = InputAudioBuffer(channels: 2, sampleRate: 100)
        var position: Int64 = 0
        for step in 0..<50 {
            let n = 37 + step % 5 * 61
            Self.ramp(n, from: Int(position)).append(to: buffer, at: position)
            let (out, copied) = readBlock(buffer, count: n, at: position)
            #expect(copied == n)
            #expect(out[1] == rampValues(Int(position)..<Int(position) + n, channel: 1))
            position += Int64(n)
        }
    }

    @Test func resetStartsAfresh() {
        let buffer = InputAudioBuffer(channels: 1, sampleRate: 8000)
        Self.ramp(100, channels: 1).append(to: buffer, at: 0)
        buffer.reset()
        #expect(buffer.bufferedSamples == 0 && buffer.endPosition == 0)
        Self.ramp(100, channels: 1).append(to: buffer, at: 5000)   // no silence from 0
        #expect(buffer.bufferedSamples == 100 && buffer.endPosition == 5100)
    }

    @Test func writerAndReaderOnTwoThreads() async {
        let buffer = InputAudioBuffer(channels: 2, sampleRate: 48000)
        let blocks = 400, size = 480
        let total = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for b in 0..<blocks { Self.ramp(size, from: b * size).append(to: buffer, at: Int64(b * size)) }
                return 0
            }
            group.addTask {
                var copied = 0
                for b in 0..<blocks {
                    while buffer.endPosition < Int64((b + 1) * size) { await Task.yield() }
                    copied += readBlock(buffer, count: size, at: Int64(b * size)).1
                }
                return copied
            }
            var sum = 0
            for await value in group { sum += value }
            return sum
        }
        #expect(total == blocks * size)
    }
}
