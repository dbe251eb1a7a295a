import Testing
import TesseraRTP
import TesseraMedia

/// `PacketCounters.add` keeps source refusals out of `malformed` by this key: it must be the
/// status key the reader counts them under.
@Suite struct RTPRefusalKeysTests {
    @Test func theSourceReasonIsTheSourceRefusalsKey() {
        #expect(RTPRefusal.source.rawValue == PacketCounters.sourceReason)
    }
}
