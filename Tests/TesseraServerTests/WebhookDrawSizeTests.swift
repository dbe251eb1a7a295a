import Foundation
import TesseraComposition
import TesseraService
import TesseraWorkerProtocol
import Testing

/// `input.drawSize`: the event an SFU controller follows to forward the simulcast layer that fills
/// an input's largest region.
@Suite struct WebhookDrawSizeTests {
    static func status(_ sizes: [(String, PixelSize?)], state: TaskState = .running) -> TaskStatus {
        TaskStatus(taskId: "room", state: state, startedAt: "2026-01-01T00:00:00Z",
                   inputs: sizes.map { InputStatus(id: $0.0, state: .live, drawSize: $0.1) })
    }

    static let small = PixelSize(width: 320, height: 180)
    static let large = PixelSize(width: 640, height: 360)

    @Test func aLayoutChangeReportsTheNewSizeOfEachInputItResizes() throws {
        let before = Self.status([("a", Self.small), ("b", Self.small)])
        let changes = WebhookChange.changes(from: before, to: Self.status([("a", Self.large), ("b", Self.small)]))
        #expect(changes == [.inputDrawSize(InputChange(id: "a", state: .live, previousState: nil, drawSize: Self.large))])
        #expect(changes.map(\.eventName) == ["input.drawSize"])
        let payload = WebhookPayload(change: changes[0], sequence: 3, timestamp: Date(), status: before)
        let body = try #require(try JSONSerialization.jsonObject(with: payload.encoded()) as? [String: Any])
        let input = try #require(body["input"] as? [String: Any])
        #expect(body["event"] as? String == "input.drawSize")
        #expect(input["id"] as? String == "a")
        #expect(input["drawSize"] as? [String: Int] == ["width": 640, "height": 360])
    }

    @Test func theSameSizeMakesNoEvent() {
        #expect(WebhookChange.changes(from: Self.status([("a", Self.small)]), to: Self.status([("a", Self.small)])).isEmpty)
    }

    @Test func theFirstSizeAndItsDisappearanceAreReported() {
        let first = WebhookChange.changes(from: nil, to: Self.status([("a", Self.small), ("b", nil)], state: .starting))
        #expect(first.map(\.eventName) == ["task.state", "input.drawSize"])
        // Taken out of every region: the event says so with no drawSize.
        let gone = WebhookChange.changes(from: Self.status([("a", Self.small)]), to: Self.status([("a", nil)]))
        #expect(gone == [.inputDrawSize(InputChange(id: "a", state: .live, previousState: nil, drawSize: nil))])
    }

    /// A new input is announced by input.added, then its size, after the state events.
    @Test func anAddedInputIsAnnouncedThenSized() {
        let changes = WebhookChange.changes(from: Self.status([("a", Self.small)]),
                                            to: Self.status([("a", Self.small), ("b", Self.large)]))
        #expect(changes.map(\.eventName) == ["input.added", "input.drawSize"])
    }
}
