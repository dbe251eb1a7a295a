import Testing
import TesseraComposition
import TesseraWorker
import TesseraWorkerProtocol

/// The mix the pipeline writes: levels, volumes, and audio kept with the pictures.
@Suite struct MixPipelineAudioTests {
    typealias H = MixHarness

    /// Each input's samples times its volume, summed (after the 10 ms ramp a joining input starts with).
    @Test func mixesInputsAtTheirVolumes() throws {
        let audio = #""audio": {"volumes": {"a": 100, "b": 50}},"#
        let mix = try H(H.sideBySide(audio: audio),
                        scripts: ["a": H.clip(H.red, until: 1, level: 0.1), "b": H.clip(H.blue, until: 1, level: 0.2)])
        let record = try mix.run()
        let samples = record.blocks.flatMap(\.samples)
        #expect(samples.count == 48_000)
        let settled = samples[480...]
        #expect(settled.allSatisfy { abs($0 - 0.2) < 1e-5 }, "\(settled.min() ?? 0)…\(settled.max() ?? 0)")
        // The ramp rises from silence, never above the target.
        #expect(samples[0] > 0 && samples[0] < 0.01)
    }

    /// An input left out of `audio.inputs` is not heard; its picture is still drawn.
    @Test func anInputLeftOutOfTheMixIsSilent() throws {
        let audio = #""audio": {"inputs": ["a"]},"#
        let mix = try H(H.sideBySide(audio: audio),
                        scripts: ["a": H.clip(H.red, until: 0.5, level: 0.25), "b": H.clip(H.blue, until: 0.5, level: 0.5)])
        let record = try mix.run()
        let settled = record.blocks.flatMap(\.samples)[480...]
        #expect(settled.allSatisfy { abs($0 - 0.25) < 1e-5 })
        #expect(try #require(record.frames.last).halves.right.isClose(to: H.blue))
    }

    /// Frame indexes count up by one from 0; audio blocks follow each other without gap or
    /// overlap from sample 0, and the sound lasts exactly as long as the picture.
    @Test func timestampsRunOnWithoutGapsAndSoundLastsAsLongAsThePicture() throws {
        let mix = try H(H.sideBySide(),
                        scripts: ["a": H.clip(H.red, until: 1.25, level: 0.1), "b": H.clip(H.blue, until: 0.7, level: 0.1)])
        let record = try mix.run()
        #expect(record.frames.map(\.index) == Array(0..<Int64(record.frames.count)))
        #expect(record.frames.count == 13)
        var next: Int64 = 0
        for block in record.blocks {
            #expect(block.position == next)
            next += Int64(block.samples.count)
        }
        #expect(next == Int64(record.frames.count) * 48_000 / 10)
    }
}
