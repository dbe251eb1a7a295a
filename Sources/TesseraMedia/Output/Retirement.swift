import Foundation

/// Ends what a live update removed — an output's last packets and trailer, an input's thread —
/// on threads of its own, so that the output thread never waits on a network peer or a file: a
/// removed RTMP output whose peer stopped reading can take seconds to give up, and every frame
/// of every other output would be late meanwhile. The task's end waits for what is still
/// running, up to a bound, so that a removed recording's trailer is written before the process
/// exits.
///
/// Threads: `retire` and `wait` from any thread.
public final class Retirement: @unchecked Sendable {
    private let group = DispatchGroup()

    public init() {}

    /// Runs `work` on a new thread named `name`.
    public func retire(_ name: String, _ work: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread { [group] in
            work()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until everything retired so far has ended, or `seconds` pass; true when all ended.
    @discardableResult
    public func wait(timeoutSeconds seconds: Double) -> Bool {
        group.wait(timeout: .now() + seconds) == .success
    }
}
