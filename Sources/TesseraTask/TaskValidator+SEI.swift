import Foundation
import TesseraComposition

extension TaskValidator {
    /// `POST /v1/tasks/{taskId}/sei`: the body read (every field's problem), then whether the
    /// task has a picture of its own to carry the message.
    public static func validateSEIInjection(_ body: Data, plan: ResolvedTask) -> Result<SEIInjection, ValidationFailure> {
        let injection: SEIInjection
        switch SEIInjection.read(body) {
        case .success(let read): injection = read
        case .failure(let failure): return .failure(failure)
        }
        if plan.video == nil {
            return .failure(ValidationFailure(issues: [ValidationIssue(
                path: "encoder.video", message: "the task is audio-only (no encoder.video): it has no video to carry SEI")]))
        }
        if plan.mode == .relay {
            return .failure(ValidationFailure(issues: [ValidationIssue(
                path: "mode", message: "a relay passes its input's video through unchanged; it cannot add SEI")]))
        }
        return .success(injection)
    }
}

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
