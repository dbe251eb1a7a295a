/// A first-in first-out queue that holds at most `capacity` elements: pushing onto a full queue
/// drops the oldest, so a dead receiver costs bounded memory and, when it comes back, gets the
/// newest events (the `status` each carries is the freshest picture of the task).
public struct WebhookQueue<Element> {
    let capacity: Int
    private var elements: [Element] = []
    /// Index of the oldest element in `elements` (popping does not shift the array every time).
    private var head = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a webhook queue holds at least one event")
        self.capacity = capacity
    }

    public var count: Int { elements.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Appends `element`; returns the oldest one when it had to be dropped to make room.
    public mutating func push(_ element: Element) -> Element? {
        var dropped: Element?
        if count == capacity { dropped = popFirst() }
        elements.append(element)
        return dropped
    }

    public mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        // Reclaim the popped prefix once it is at least half the storage.
        if head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}
