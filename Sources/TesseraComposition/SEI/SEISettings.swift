import Foundation

/// `sei` resolved: the volume SEI's period and UUID (nil period: no volume SEI) and the app data
/// every one of them carries.
public struct SEISettings: Codable, Sendable, Equatable {
    public var volumeIntervalMilliseconds: Int?
    public var volumeUUID: [UInt8]
    public var appData: String

    public static let intervalRange = 300...5000
    public static let defaultIntervalMilliseconds = 1000
    public static let maxAppDataCharacters = 4096
    /// The volume SEI's UUID when the document names none: `0d6e1a9f-3c2b-4d8e-8f7a-6b5c4d3e2f10`.
    public static let defaultVolumeUUID: [UInt8] = SEIUUID.parse("0d6e1a9f3c2b4d8e8f7a6b5c4d3e2f10")!

    public init(volumeIntervalMilliseconds: Int?, volumeUUID: [UInt8] = SEISettings.defaultVolumeUUID, appData: String = "") {
        self.volumeIntervalMilliseconds = volumeIntervalMilliseconds; self.volumeUUID = volumeUUID; self.appData = appData
    }
}
