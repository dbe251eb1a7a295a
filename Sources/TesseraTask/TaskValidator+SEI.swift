import TesseraComposition
/// `sei`: the volume SEI's period and UUID, and the app data (SPEC §1, issue 13).
extension ValidationContext {
    mutating func resolveSEI(_ spec: SEISpec?, hasVideo: Bool, mode: TaskMode?) -> SEISettings? {
        guard let spec else { return nil }
        if mode == .relay {
            issues.add("sei", "a relay passes its input's video through unchanged; it writes no SEI of its own")
            return nil
        }
        if !hasVideo {
            issues.add("sei", "an audio-only task (no encoder.video) has no video to carry SEI")
            return nil
        }
        var settings = SEISettings(volumeIntervalMilliseconds: nil)
        if let appData = spec.appData {
            if appData.count > SEISettings.maxAppDataCharacters {
                issues.add("sei.appData", "is \(appData.count) characters; at most \(SEISettings.maxAppDataCharacters) are allowed")
            }
            settings.appData = appData
        }
        if let volume = spec.volume {
            let interval = volume.intervalMs ?? SEISettings.defaultIntervalMilliseconds
            if !SEISettings.intervalRange.contains(interval) {
                issues.add("sei.volume.intervalMs", "must be between 300 and 5000")
            }
            settings.volumeIntervalMilliseconds = interval
            if let text = volume.uuid {
                if let uuid = SEIUUID.parse(text) { settings.volumeUUID = uuid } else {
                    issues.add("sei.volume.uuid", "must be 32 hexadecimal digits")
                }
            }
        }
        return settings
    }
}
