// fuzz-modules: TesseraComposition TesseraRTP TesseraTask
import Foundation
import TesseraTask

/// A task document as `POST /v1/tasks` receives it: the JSON reader (`JSONValue.parse`, duplicate
/// keys, depth, numbers), the document reader (strict and best effort) and `TaskValidator` with
/// the server's options — paths confined, hosts resolved (here by a fixed table, no DNS) and
/// checked against a deny list, files taken to exist.
///
/// Properties: parsed JSON written back with `JSONEncoder` parses to the same value (the task
/// store keeps documents that way); a validated plan survives the trip to the worker (`Codable`
/// out and back in) unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let value = try? JSONValue.parse(data) else { return 0 }
    let written = try! JSONEncoder().encode(value)
    require((try? JSONValue.parse(written)) == value, "JSON written back parses differently")
    _ = TaskDocumentReader.read(data)
    if case .success(let plan) = TaskValidator.validate(json: data, options: TaskFuzzOptions.server) {
        let sent = try! JSONEncoder().encode(plan)
        require((try? JSONDecoder().decode(ResolvedTask.self, from: sent)) == plan, "a plan changes on its way to the worker")
    }
    return 0
}

enum TaskFuzzOptions {
    /// `tessera serve`'s options without the machine: names resolve by their length, so every
    /// branch (unresolvable, private, public) is reachable and each run answers the same.
    static let server: ValidationOptions = {
        var options = ValidationOptions.serve(mediaRoot: "/srv/media", outputDirectory: "/srv/out")
        options.fileExists = { _ in true }
        options.inspectFile = { _ in nil }
        options.objectStorage = true
        options.deniedHosts = (try? HostDenyList(["10.0.0.0/8", "metadata.internal"])) ?? HostDenyList()
        options.resolveHost = { host in
            switch host.utf8.count % 3 {
            case 0: return nil
            case 1: return [[10, 1, 2, 3]]
            default: return [[93, 184, 216, 34]]
            }
        }
        return options
    }()
}
