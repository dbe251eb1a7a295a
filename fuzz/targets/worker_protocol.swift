// fuzz-modules: TesseraComposition TesseraRTP TesseraTask TesseraWorkerProtocol
import Foundation
import TesseraWorkerProtocol

/// The line protocol between `tessera serve` and a worker: the input goes through a pipe and
/// `LineReader` cuts it into lines, as on the worker's standard input; each line is decoded as
/// the worker decodes a command (`WorkerCommand`) and as the server decodes the worker's output
/// (`WorkerEvent`, its `WorkerStatus`), and as a `TaskStatus`.
///
/// Properties: the lines read are the input's, in order; a decoded command or status written
/// back decodes to itself (each side writes what the other reads).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // A pipe holds 64 KiB: written whole before it is read, the input must fit.
    let bytes = UnsafeRawBufferPointer(start: start, count: min(count, 60_000))
    let decoder = JSONDecoder(), encoder = JSONEncoder()
    for line in lines(of: bytes) {
        if let command = try? decoder.decode(WorkerCommand.self, from: line) {
            let again = try? decoder.decode(WorkerCommand.self, from: try! encoder.encode(command))
            require(again == command, "a command written back decodes differently")
        }
        if let event = try? decoder.decode(WorkerEvent.self, from: line), let status = event.status {
            let again = try? decoder.decode(WorkerStatus.self, from: try! encoder.encode(status))
            require(again == status, "a worker status written back decodes differently")
        }
        if let status = try? decoder.decode(TaskStatus.self, from: line) {
            let again = try? decoder.decode(TaskStatus.self, from: try! encoder.encode(status))
            require(again == status, "a task status written back decodes differently")
        }
    }
    return 0
}

/// The lines `LineReader` reads from a pipe holding `bytes`, checked against a plain split.
private func lines(of bytes: UnsafeRawBufferPointer) -> [Data] {
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else { fatalError("pipe: \(errno)") }
    var written = 0
    while written < bytes.count {
        let result = write(descriptors[1], bytes.baseAddress! + written, bytes.count - written)
        guard result > 0 else { fatalError("write: \(errno)") }
        written += result
    }
    close(descriptors[1])
    var reader = LineReader(descriptor: descriptors[0])
    var lines: [Data] = []
    while let line = reader.next() { lines.append(line) }
    close(descriptors[0])
    var expected = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { Data($0) }
    if expected.last?.isEmpty == true { expected.removeLast() }
    require(lines == expected, "LineReader read \(lines.count) lines, the input has \(expected.count)")
    return lines
}
