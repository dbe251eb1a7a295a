/// The `sei` section: periodic layout-and-volume SEI and its app data (an update may replace it).
extension TaskDocumentReader {
    static func readSEI(_ sei: JSONObjectReader, issues: inout IssueList) -> SEISpec {
        var sei = sei
        var spec = SEISpec(appData: sei.string("appData", issues: &issues))
        if var volume = sei.object("volume", issues: &issues) {
            spec.volume = VolumeSEISpec(intervalMs: volume.int("intervalMs", issues: &issues),
                                        uuid: volume.string("uuid", issues: &issues))
            volume.reportUnknownFields(issues: &issues)
        }
        sei.reportUnknownFields(issues: &issues)
        return spec
    }
}
