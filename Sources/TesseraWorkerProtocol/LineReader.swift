import Foundation

/// Reads newline-separated JSON objects from a file descriptor (blocking; its own thread).
package struct LineReader {
    private let descriptor: Int32
    private var buffer = Data()

    package init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line, or nil at end of file.
    package mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return Data(line)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return buffer
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
