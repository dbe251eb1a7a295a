/// The words a task's final status gives when it ended by itself rather than on request, so an
/// operator reading `stopped` knows whether the show ran its course or went quiet.
enum TaskEndReason {
    static func maxDuration(_ seconds: Double) -> String {
        "reached maxDurationSeconds (\(plain(seconds)) s)"
    }

    static func idle(_ seconds: Double) -> String {
        "idle: no input was live for idleTimeoutSeconds (\(plain(seconds)) s)"
    }

    static func inputEnded(_ id: String) -> String {
        "the input \"\(id)\" ended"
    }

    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
