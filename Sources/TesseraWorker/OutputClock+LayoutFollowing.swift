import TesseraComposition

extension OutputClock {
    /// A template that follows the room (`layout.fill: present`, template `speaker`) is
    /// re-arranged from what the inputs show at this frame, before it is drawn: a join, a drop or
    /// a new speaker shows in the same output frame. The new layout goes into `LayoutState`, where
    /// the input threads read the sizes to scale to.
    func followTheRoom(frames: [DecodedVideoFrame?], at time: Int64) {
        guard follower.isFollowing else { return }
        var hasVideo = Set<Int>(), audioOnly = Set<Int>()
        for (index, worker) in workers.enumerated() {
            if frames[index] != nil { hasVideo.insert(index) } else if worker.isAudioOnly(at: time) { audioOnly.insert(index) }
        }
        guard let change = follower.follow(hasVideo: hasVideo, audioOnly: audioOnly, levels: speakerLevels(), at: time)
        else { return }
        layoutState.replace(with: change.layout, inputIDs: workers.map(\.input.id), standby: change.standby)
    }

    /// Old input index → new index for the inputs an update kept (matched by id).
    static func indexMap(from old: [String], to new: [String]) -> [Int: Int] {
        var map: [Int: Int] = [:]
        for (index, id) in old.enumerated() { if let at = new.firstIndex(of: id) { map[index] = at } }
        return map
    }

    /// Each input's last picture, when a region of `layout` keeps it after video stops.
    func lastPictures(for layout: ResolvedLayout) -> [DecodedVideoFrame?] {
        guard layout.regions.contains(where: { $0.onVideoLoss == .lastFrame }) else { return [] }
        return workers.map(\.channel.lastPicture)
    }

    /// Levels 0–100 by input index (their last 300 ms as mixed, after volume), for the speaker template.
    private func speakerLevels() -> [Int: Double] {
        guard follower.followsSpeaker else { return [:] }
        var levels: [Int: Double] = [:]
        for (index, worker) in workers.enumerated() {
            if let level = audioLevels[worker.input.id] { levels[index] = Double(level.level) }
        }
        return levels
    }
}
