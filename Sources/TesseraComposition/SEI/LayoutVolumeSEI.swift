import Foundation

/// The periodic layout-and-volume message (TRTC `SeiParams.LayoutVolume`, ByteRTC's volume
/// indication): a `user_data_unregistered` SEI whose payload is JSON
/// `{"ts": <output time ms>, "appData": "...", "regions": [{"input", "x", "y", "width", "height",
/// "zOrder"}], "volumes": [{"input", "level", "speaking"}]}`. `zOrder` is the region's rank in
/// drawing order (0 at the bottom); only regions showing an input are listed.
public enum LayoutVolumeSEI {
    struct Payload: Encodable {
        var ts: Int64
        var appData: String
        var regions: [Region]
        var volumes: [Volume]
    }
    struct Region: Encodable {
        var input: String
        var x: Int, y: Int, width: Int, height: Int
        var zOrder: Int
    }
    struct Volume: Encodable {
        var input: String
        var level: Int
        var speaking: Bool
    }

    public static func message(timeMilliseconds: Int64, settings: SEISettings, layout: ResolvedLayout?, inputIDs: [String],
                               levels: [String: AudioLevel]) -> SEIMessage {
        var regions: [Region] = []
        for (rank, region) in (layout?.regions ?? []).enumerated() {
            guard case .input(let index) = region.content, inputIDs.indices.contains(index) else { continue }
            regions.append(Region(input: inputIDs[index], x: region.rect.x, y: region.rect.y, width: region.rect.width,
                                  height: region.rect.height, zOrder: rank))
        }
        let volumes = inputIDs.map { id in
            let level = levels[id] ?? AudioLevel(level: 0, speaking: false)
            return Volume(input: id, level: level.level, speaking: level.speaking)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(Payload(ts: timeMilliseconds, appData: settings.appData, regions: regions, volumes: volumes)))
            ?? Data("{}".utf8)
        return .unregistered(uuid: settings.volumeUUID, data: Array(json))
    }
}

/// When the volume SEI is due: at output time 0 and then every `intervalMilliseconds`.
public struct VolumeSEISchedule: Sendable {
    private var nextMilliseconds: Int64 = 0

    public init() {}

    /// Whether a message goes into the frame at `timeMilliseconds`; advances past it when so. A
    /// changed interval (an update) takes effect from the next message.
    public mutating func isDue(atMilliseconds time: Int64, intervalMilliseconds interval: Int) -> Bool {
        guard time >= nextMilliseconds else { return false }
        // Stay on the grid of the interval; after a stall, the next message comes a whole interval on.
        nextMilliseconds += Int64(interval)
        if nextMilliseconds <= time { nextMilliseconds = time + Int64(interval) }
        return true
    }
}
