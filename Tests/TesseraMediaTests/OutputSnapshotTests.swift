import Testing
import TesseraMedia

/// An HLS ladder's variants reported as one output.
@Suite struct OutputSnapshotTests {
    static func snapshot(_ state: Publisher.State, bytes: Int64 = 10, error: String? = nil) -> Publisher.Snapshot {
        Publisher.Snapshot(state: state, bytes: bytes, reconnects: 1, droppedPackets: 2, lastError: error)
    }

    @Test func theLeastHealthyVariantSpeaksForTheLadder() {
        let combined = Publisher.Snapshot.combined([Self.snapshot(.live), Self.snapshot(.reconnecting, error: "refused"),
                                                    Self.snapshot(.paused, error: "later")])
        #expect(combined.state == .reconnecting)
        #expect(combined.bytes == 30 && combined.reconnects == 3 && combined.droppedPackets == 6)
        #expect(combined.lastError == "refused")
        #expect(Publisher.Snapshot.combined([Self.snapshot(.finished), Self.snapshot(.failed)]).state == .failed)
        #expect(Publisher.Snapshot.combined([Self.snapshot(.finished), Self.snapshot(.live)]).state == .live)
        #expect(Publisher.Snapshot.combined([]).state == .live)
    }
}
