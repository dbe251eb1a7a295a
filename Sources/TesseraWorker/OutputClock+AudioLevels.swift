
extension OutputClock {
    /// Feeds each input's share of the block just mixed to its level meter and publishes the
    /// levels for the status. Inputs removed by an update are forgotten here too.
    func measureAudioLevels(count: Int) {
        let ids = workers.map(\.input.id)
        for worker in workers {
            audioLevels.add(input: worker.input.id, meanSquare: mixer.lastMeanSquare(of: worker.channel.audio), samples: count)
        }
        audioLevels.keep(only: ids)
        let snapshot = audioLevels.snapshot
        control.updateStats { $0.audioLevels = snapshot }
    }
}
