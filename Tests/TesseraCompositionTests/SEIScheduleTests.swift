import Testing
import TesseraComposition

/// SEI messages waiting for their encoded picture.
@Suite struct SEIScheduleTests {
    static let a = SEIMessage(payloadType: SEIMessage.unregisteredUserData, payload: Array(repeating: 1, count: 17))
    static let b = SEIMessage(payloadType: SEIMessage.unregisteredUserData, payload: Array(repeating: 2, count: 17))

    @Test func messagesWaitForTheirFrameAndAreTakenOnce() {
        var schedule = SEISchedule()
        #expect(schedule.isEmpty)
        schedule.schedule([Self.a], frame: 4)
        schedule.schedule([], frame: 5)
        #expect(schedule.take(frame: 5) == nil)
        #expect(schedule.take(frame: 4) == [Self.a])
        #expect(schedule.take(frame: 4) == nil)
        #expect(schedule.isEmpty)
    }

    @Test func aMessageRepeatedOnSkippedFramesGoesInOnce() {
        var schedule = SEISchedule()
        schedule.schedule([Self.a], frame: 6)
        schedule.schedule([Self.a, Self.b], frame: 6)
        #expect(schedule.take(frame: 6) == [Self.a, Self.b])
    }

    @Test func framesFarBehindAreForgotten() {
        var schedule = SEISchedule()
        for frame in 0...512 { schedule.schedule([Self.a], frame: Int64(frame)) }
        #expect(schedule.take(frame: 0) == nil) // a frame the encoder dropped
        #expect(schedule.take(frame: 512) == [Self.a])
        #expect(schedule.take(frame: 300) == [Self.a])
    }
}
