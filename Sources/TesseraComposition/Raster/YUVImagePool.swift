import Synchronization

/// Keeps the memory of pictures that have been let go, by size, so the next picture of that size
/// takes it instead of a fresh allocation. A live input makes 30–60 pictures a second of the same
/// few sizes; without a pool each one is a large `malloc` and `free`, and glibc's heaps fragment
/// between the input threads that allocate and the output thread that frees.
///
/// Threads: pictures are made on input threads and released on the output thread, so every call
/// takes the `Mutex`; each is a dictionary look-up and an array push or pop.
public final class YUVImagePool: Sendable {
    private let free = Mutex<[Int: [Block]]>([:])
    /// Spare blocks kept per size; more are freed. Enough for a live input's queue to refill.
    private let sparePerSize: Int

    /// A spare block: nobody else holds it while it is in the pool, so it may cross threads.
    private struct Block: @unchecked Sendable { let pointer: UnsafeMutableRawPointer }

    public init(sparePerSize: Int = 8) { self.sparePerSize = sparePerSize }

    deinit { free.withLock { $0.values.forEach { blocks in blocks.forEach { $0.pointer.deallocate() } } } }

    /// A block of `byteCount` bytes aligned to `alignment`: a spare one if there is one.
    func take(byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        if let block = free.withLock({ $0[byteCount]?.popLast() }) { return block.pointer }
        return UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: alignment)
    }

    /// Takes back a block `take` gave out.
    func give(_ block: UnsafeMutableRawPointer, byteCount: Int) {
        let kept = free.withLock { free -> Bool in
            guard free[byteCount, default: []].count < sparePerSize else { return false }
            free[byteCount, default: []].append(Block(pointer: block))
            return true
        }
        if !kept { block.deallocate() }
    }

    /// Blocks waiting to be reused (for tests).
    public var spareCount: Int { free.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
