/// `audio`: which inputs are heard and how loud.
extension ValidationContext {
    /// Gains in input order: `volume / 100` for the inputs in `audio.inputs` (all by default), 0
    /// for the rest.
    mutating func resolveAudioMix(_ spec: AudioSpec?, inputIds: [String]) -> AudioMixPlan? {
        let before = issues.count
        var included = Set(inputIds.indices)
        if let listed = spec?.inputs {
            included = []
            for (index, id) in listed.enumerated() {
                let path = FieldPath.element("audio.inputs", index)
                guard let inputIndex = inputIds.firstIndex(of: id) else {
                    issues.add(path, "unknown input \"\(id)\"")
                    continue
                }
                if !included.insert(inputIndex).inserted { issues.add(path, "input \"\(id)\" is listed twice") }
            }
        }
        var volumes = Array(repeating: 100.0, count: inputIds.count)
        for (id, volume) in (spec?.volumes ?? [:]).sorted(by: { $0.key < $1.key }) {
            let path = FieldPath.member("audio.volumes", id)
            guard let inputIndex = inputIds.firstIndex(of: id) else {
                issues.add(path, "unknown input \"\(id)\"")
                continue
            }
            guard volume.isFinite, (0...200).contains(volume) else {
                issues.add(path, "must be a percentage from 0 to 200")
                continue
            }
            volumes[inputIndex] = volume
        }
        guard issues.count == before else { return nil }
        return AudioMixPlan(gains: inputIds.indices.map { included.contains($0) ? Float(volumes[$0] / 100) : 0 })
    }
}
