import Testing
import TesseraObjectStorage

@Suite struct HLSUploadPlanTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:3
        #EXT-X-MAP:URI="room_init.mp4"
        #EXTINF:2.000000,
        room_00003.m4s
        #EXTINF:2.000000,
        room_00004.m4s
        """

    @Test func newSegmentsGoUpBeforeThePlaylistAndExpiredOnesAreNamed() {
        let plan = HLSUploadPlan.plan(playlist: Self.playlist, uploaded: ["room_init.mp4", "room_00002.m4s", "room_00003.m4s"])
        #expect(plan.segments == ["room_00004.m4s"])
        #expect(plan.expired == ["room_00002.m4s"])
        #expect(HLSUploadPlan.files(in: Self.playlist) == ["room_init.mp4", "room_00003.m4s", "room_00004.m4s"])
        #expect(!HLSUploadPlan.isComplete(Self.playlist))
        #expect(HLSUploadPlan.isComplete(Self.playlist + "\n#EXT-X-ENDLIST\n"))
    }
}
