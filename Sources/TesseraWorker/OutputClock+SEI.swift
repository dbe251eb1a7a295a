import TesseraComposition

extension OutputClock {
    /// The SEI messages of the output frame at `time` (µs, output timeline; `clockTime` on the
    /// inputs' task clock): the inputs' user data of every picture shown by then (passthrough),
    /// the injected messages still to repeat, and, when due, the layout-and-volume message.
    func seiMessages(at time: Int64, clockTime: Int64) -> [SEIMessage] {
        var messages: [SEIMessage] = []
        // The picture drawn at `clockTime` is the latest not after it (within the container tolerance).
        let shown = clockTime + InputChannel.timestampToleranceMicroseconds
        for worker in workers { messages += worker.seiQueue.take(upTo: shown) }
        messages += control.injectedSEI.takeForNextFrame()
        if let settings = task.sei, let interval = settings.volumeIntervalMilliseconds,
           volumeSEISchedule.isDue(atMilliseconds: time / 1000, intervalMilliseconds: interval) {
            messages.append(LayoutVolumeSEI.message(timeMilliseconds: time / 1000, settings: settings,
                                                    layout: layoutState.layout, inputIDs: task.inputs.map(\.id),
                                                    levels: audioLevels.snapshot))
        }
        return messages
    }
}
