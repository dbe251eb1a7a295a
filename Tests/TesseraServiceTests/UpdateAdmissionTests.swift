import Testing
import TesseraService
import TesseraWorkerProtocol

/// The one rule for whether a `PATCH` applies: order by `sequence`, nothing once stopping.
@Suite struct UpdateAdmissionTests {
    @Test(arguments: [
        // sequence, last applied, expected
        (Int64?.none, Int64?.none, UpdateAdmission.accept(sequence: nil)),
        (1, nil, .accept(sequence: 1)),
        (5, 4, .accept(sequence: 5)),
        (nil, 4, .accept(sequence: 4)),
        (4, 4, .refuseStale(got: 4, last: 4)),
        (3, 4, .refuseStale(got: 3, last: 4)),
        (-1, 0, .refuseStale(got: -1, last: 0)),
    ])
    func updatesApplyInSequenceOrder(sequence: Int64?, last: Int64?, expected: UpdateAdmission) {
        #expect(UpdateAdmission.decide(sequence: sequence, lastSequence: last, ending: nil) == expected)
    }

    @Test(arguments: [TaskState.stopping, .stopped, .failed])
    func aTaskThatIsEndingTakesNoUpdate(state: TaskState) {
        #expect(UpdateAdmission.decide(sequence: 9, lastSequence: 1, ending: state) == .refuseEnded(state))
        // Ending wins over a stale sequence: the caller learns the task is gone, not to retry.
        #expect(UpdateAdmission.decide(sequence: 1, lastSequence: 9, ending: state) == .refuseEnded(state))
    }
}
