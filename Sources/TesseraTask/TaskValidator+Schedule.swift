import TesseraComposition
/// Top-level `updates`: the updates a live show accepted, each at its time on the task's clock,
/// validated as a `PATCH` carrying the same sections would be (paths `updates[2].layout.…`).
extension ValidationContext {
    /// One update's sections, resolved; nil fields were not in the update (the task before holds).
    struct ScheduledSections {
        var atMicroseconds: Int64
        var layout: ResolvedLayout??
        var audioMix: AudioMixPlan?
        var sei: SEISettings??
    }

    /// Each entry's sections resolved against the document as the entries before it left it; nil
    /// when there are none. Live tasks are refused: they take updates by `PATCH`.
    mutating func resolveSchedule(_ document: TaskDocument, mode: TaskMode?, inputIds: [String]) -> [ScheduledSections]? {
        guard let updates = document.updates else { return nil }
        guard options.offline else {
            issues.add("updates", "scheduled updates are played by `tessera mix` (a show's timeline); a live task is updated with PATCH")
            return nil
        }
        var current = document
        current.updates = nil
        current.timeline = nil
        var previousAt: Int?
        var resolved: [ScheduledSections] = []
        for (index, update) in updates.enumerated() {
            let path = FieldPath.element("updates", index)
            if !(0...Self.maxTimelineMs).contains(update.atMs) {
                issues.add(path + ".atMs", "must be between 0 and \(Self.maxTimelineMs) (7 days)")
            } else if let previousAt, update.atMs < previousAt {
                issues.add(path + ".atMs", "must not be before the previous update's (\(previousAt)): updates are in the order they were made")
            }
            previousAt = max(previousAt ?? update.atMs, update.atMs)
            if update.layout == nil, update.audio == nil, update.sei == nil {
                issues.add(path, "changes nothing: give layout, audio or sei")
            }
            var section = ValidationContext(options: options)
            section.resolvedHosts = resolvedHosts
            var entry = ScheduledSections(atMicroseconds: Int64(max(0, update.atMs)) * 1000)
            if let layout = update.layout {
                current.layout = layout
                entry.layout = .some(section.resolveLayoutSection(current, mode: mode, inputIds: inputIds))
            }
            if let audio = update.audio {
                current.audio = audio
                entry.audioMix = section.resolveAudioMix(audio, inputIds: inputIds)
            }
            if let sei = update.sei {
                current.sei = sei
                entry.sei = .some(section.resolveSEI(sei, hasVideo: document.encoder?.video != nil, mode: mode))
            }
            resolvedHosts = section.resolvedHosts
            issues.append(contentsOf: section.issues.items.map { ValidationIssue(path: FieldPath.member(path, $0.path), message: $0.message) })
            resolved.append(entry)
        }
        return resolved
    }

    /// The schedule of `base`: each entry the whole task after its update.
    static func schedule(_ sections: [ScheduledSections], base: ResolvedTask) -> [ScheduledUpdate] {
        var task = base
        task.schedule = nil
        return sections.map { entry in
            if let layout = entry.layout { task.layout = layout }
            if let mix = entry.audioMix { task.audioMix = mix }
            if let sei = entry.sei { task.sei = sei }
            return ScheduledUpdate(atMicroseconds: entry.atMicroseconds, task: task)
        }
    }
}
