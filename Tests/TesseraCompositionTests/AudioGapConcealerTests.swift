import Foundation
import Testing
import TesseraComposition

@Suite struct AudioGapConcealerTests {
    static let sampleRate = 48000

    static func sine(_ range: Range<Int>, phase: Double = 0) -> [Float] {
        range.map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / Double(sampleRate) + phase)) }
    }

    /// Everything the concealer emits, checked to be contiguous, per channel.
    final class Collector {
        var planes: [[Float]]
        var end: Int64?
        var contiguous = true
        init(channels: Int) { planes = Array(repeating: [], count: channels) }

        func take(_ pointers: [UnsafePointer<Float>], _ count: Int, _ position: Int64) {
            if let end, end != position { contiguous = false }
            end = position + Int64(count)
            for (channel, pointer) in pointers.enumerated() {
                planes[channel] += UnsafeBufferPointer(start: pointer, count: count)
            }
        }
    }

    static func feed(_ concealer: AudioGapConcealer, _ planes: [[Float]], position: Int64, into collector: Collector) {
        let copies = planes.map { plane in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(1, plane.count))
            pointer.initialize(from: plane, count: plane.count)
            return pointer
        }
        defer { copies.forEach { $0.deallocate() } }
        concealer.process(copies.map { UnsafePointer($0) }, count: planes[0].count, position: position, emit: collector.take)
    }

    static func largestStep(_ samples: ArraySlice<Float>) -> Float {
        zip(samples.dropFirst(), samples).map { abs($0 - $1) }.max() ?? 0
    }

    @Test func aTwentyMillisecondHoleFadesInsteadOfClicking() {
        let block = 336  // 7 ms, so the hole starts mid-cycle where a hard cut would click
        let holeStart = 14 * block, holeLength = 960
        let concealer = AudioGapConcealer(channels: 2, sampleRate: Self.sampleRate)
        let output = Collector(channels: 2)
        var hardCut = Self.sine(0..<40 * block)
        hardCut.replaceSubrange(holeStart..<holeStart + holeLength, with: repeatElement(0, count: holeLength))
        var position = 0
        while position < 40 * block {
            if position == holeStart { position += holeLength; continue }
            let range = position..<position + block
            Self.feed(concealer, [Self.sine(range), Self.sine(range, phase: 1)], position: Int64(position), into: output)
            position += block
        }
        #expect(output.contiguous && output.planes[0].count == position)
        #expect(concealer.concealedSamples == Int64(holeLength))
        let near = (holeStart - 200)..<(holeStart + holeLength + 200)
        let cut = Self.largestStep(hardCut[near])
        let naturalStep = Float(0.5 * 2 * Double.pi * 440 / Double(Self.sampleRate))
        for plane in output.planes {
            let concealed = Self.largestStep(plane[near])
            #expect(concealed < cut / 4, "concealed \(concealed), hard cut \(cut)")
            #expect(concealed < naturalStep * 1.5)
        }
        // The fill carries sound into the hole before it fades out.
        #expect(output.planes[0][holeStart + 100..<holeStart + 200].map(abs).max()! > 0.2)
        #expect(output.planes[0][holeStart + holeLength - 1] .magnitude < 0.01)
    }

    @Test func firstBlocksOverlapsAndTinyGapsPassThroughUnchanged() {
        let concealer = AudioGapConcealer(channels: 1, sampleRate: Self.sampleRate)
        let output = Collector(channels: 1)
        let first = Self.sine(0..<480)
        Self.feed(concealer, [first], position: 1000, into: output)
        Self.feed(concealer, [Self.sine(400..<880)], position: 1400, into: output)  // overlaps
        Self.feed(concealer, [Self.sine(970..<1450)], position: 1970, into: output)  // 90 samples late: under 2 ms
        #expect(output.planes[0] == first + Self.sine(400..<880) + Self.sine(970..<1450))
        #expect(concealer.concealedSamples == 0)
    }

    @Test func aGapOverOneSecondGetsNoFillButFadesIn() {
        let concealer = AudioGapConcealer(channels: 1, sampleRate: Self.sampleRate)
        let output = Collector(channels: 1)
        Self.feed(concealer, [Self.sine(0..<480)], position: 0, into: output)
        let ones = [Float](repeating: 1, count: 480)
        Self.feed(concealer, [ones], position: 480 + 48001, into: output)
        #expect(concealer.concealedSamples == 0 && output.planes[0].count == 960)
        #expect(output.planes[0][480] == 0 && output.planes[0][480 + 120] == 0.5 && output.planes[0][959] == 1)
    }

    @Test func afterResetTheNextBlockIsAFirstBlock() {
        let concealer = AudioGapConcealer(channels: 1, sampleRate: Self.sampleRate)
        let output = Collector(channels: 1)
        Self.feed(concealer, [Self.sine(0..<480)], position: 0, into: output)
        concealer.reset()
        Self.feed(concealer, [Self.sine(0..<480)], position: 5000, into: output)
        #expect(concealer.concealedSamples == 0 && output.planes[0] == Self.sine(0..<480) + Self.sine(0..<480))
    }
}
