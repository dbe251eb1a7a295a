import Foundation
import Synchronization

/// Writes whole lines to a file descriptor from any thread: one line at a time under a `Mutex`, so
/// the lines of two threads never interleave, each sent by a `write` loop until it is all out.
package final class LineWriter: Sendable {
    private let descriptor: Int32
    private let encoder = Mutex(JSONEncoder())

    package init(descriptor: Int32) { self.descriptor = descriptor }

    package func send<T: Encodable>(_ value: T) {
        encoder.withLock { encoder in
            guard var data = try? encoder.encode(value) else { return }
            data.append(0x0A)
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}
