import TesseraTask
import Testing

struct EncoderLatencyTests {
    @Test func normalReadsPacedInputsFromTwoHundredToThreeHundredMillisecondsAhead() {
        let normal = EncoderLatency.normal
        // Read on at 200 ms, up to the 300 ms a live input is placed ahead: never beyond its lead.
        #expect(normal.pacedWakeLeadMicroseconds == 200_000)
        #expect(normal.pacedWakeLeadMicroseconds + normal.readBatchMicroseconds == normal.inputLatencyMicroseconds)
    }

    @Test func lowKeepsItsWholeLeadWhileReadingAFrameBeyondIt() {
        let low = EncoderLatency.low
        // The least lead a paced input has is the 60 ms it is placed ahead: batching costs no margin.
        #expect(low.pacedWakeLeadMicroseconds == low.inputLatencyMicroseconds)
        #expect(low.inputLatencyMicroseconds == 60_000)
        // One 30 fps frame (and the audio with it) read in one go beyond it.
        #expect(low.readBatchMicroseconds == 33_000)
        #expect(low.pacedWakeLeadMicroseconds + low.readBatchMicroseconds < EncoderLatency.normal.pacedWakeLeadMicroseconds)
    }
}
