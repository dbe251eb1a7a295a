import DequeModule

/// A first-in first-out queue that holds at most `capacity` elements: pushing onto a full queue
/// drops the oldest, so a dead receiver costs bounded memory and, when it comes back, gets the
/// newest events (the `status` each carries is the freshest picture of the task).
public struct WebhookQueue<Element> {
    let capacity: Int
    private var elements = Deque<Element>()

    public init(capacity: Int) {
        precondition(capacity > 0, "a webhook queue holds at least one event")
        self.capacity = capacity
    }

    public var count: Int { elements.count }
    public var isEmpty: Bool { elements.isEmpty }

    /// Appends `element`; returns the oldest one when it had to be dropped to make room.
    public mutating func push(_ element: Element) -> Element? {
        let dropped = elements.count == capacity ? elements.popFirst() : nil
        elements.append(element)
        return dropped
    }

    public mutating func popFirst() -> Element? { elements.popFirst() }
}
