import TesseraService
import Testing

@Suite struct WebhookQueueTests {
    @Test func keepsOrderBelowCapacity() {
        var queue = WebhookQueue<Int>(capacity: 4)
        for value in 1...3 { #expect(queue.push(value) == nil) }
        #expect(queue.count == 3)
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst(), queue.popFirst()] == [1, 2, 3, nil])
        #expect(queue.isEmpty)
    }

    @Test func dropsTheOldestWhenFull() {
        var queue = WebhookQueue<Int>(capacity: 3)
        var dropped: [Int] = []
        for value in 1...7 { if let old = queue.push(value) { dropped.append(old) } }
        #expect(dropped == [1, 2, 3, 4])
        #expect(queue.count == 3)
        var left: [Int] = []
        while let value = queue.popFirst() { left.append(value) }
        #expect(left == [5, 6, 7])
    }

    /// Interleaved pushes and pops (the storage compacts now and then) never lose or reorder.
    @Test func interleavedUseStaysFirstInFirstOut() {
        var queue = WebhookQueue<Int>(capacity: 5)
        var popped: [Int] = []
        var next = 0
        for round in 0..<200 {
            for _ in 0..<(round % 3 + 1) {
                #expect(queue.push(next) == nil || queue.count == 5)
                next += 1
            }
            for _ in 0..<(round % 2 + 1) { if let value = queue.popFirst() { popped.append(value) } }
        }
        while let value = queue.popFirst() { popped.append(value) }
        #expect(popped == popped.sorted())
        #expect(Set(popped).count == popped.count)
        #expect(popped.last == next - 1)
    }
}
