extension ServiceError {
    /// What went wrong, whatever carries the request. The names are the API's error codes; only
    /// the HTTP layer (`TesseraServer`) knows which status code each one is answered with.
    public enum Kind: Sendable, Equatable {
        /// A task document (`POST`) that cannot run; `path` names the field.
        case invalidTask
        /// An update (`PATCH`) that cannot be applied; `path` names the field.
        case invalidUpdate
        /// An SEI injection that cannot be carried.
        case invalidSEI
        case taskNotFound
        /// The id is taken by a task with another document.
        case taskExists
        /// The task is not in a state that allows the request (stopping, stopped, moving, audio-only).
        case invalidState
        /// An update's `sequence` is not past the one in force.
        case staleSequence
        /// A UDP port the task needs is held by someone else.
        case portInUse
        /// A file, playlist or object an output writes is being written by another running task.
        case outputInUse
        /// No node has room for another task.
        case tooManyTasks
        /// The output directory has less free space than `--min-free-bytes`: no new recording here.
        case insufficientStorage
        case shuttingDown
        /// The task store cannot be reached: nothing was changed.
        case storeUnavailable
        /// The node that runs the task does not answer.
        case nodeUnavailable
        /// Another node answered unreadably.
        case peerError
        /// A failure of this server; its log has the details.
        case internalError

        /// The API's name of the error (`TaskNotFound`, `StaleSequence`…).
        public var code: String {
            switch self {
            case .invalidTask: "InvalidTask"
            case .invalidUpdate: "InvalidUpdate"
            case .invalidSEI: "InvalidSEI"
            case .taskNotFound: "TaskNotFound"
            case .taskExists: "TaskExists"
            case .invalidState: "InvalidState"
            case .staleSequence: "StaleSequence"
            case .portInUse: "PortInUse"
            case .outputInUse: "OutputInUse"
            case .tooManyTasks: "TooManyTasks"
            case .insufficientStorage: "InsufficientStorage"
            case .shuttingDown: "ShuttingDown"
            case .storeUnavailable: "StoreUnavailable"
            case .nodeUnavailable: "NodeUnavailable"
            case .peerError: "PeerError"
            case .internalError: "InternalError"
            }
        }

        /// The kind an error code names (a peer's answer), nil for a code of no service error.
        public init?(code: String) {
            let named: [Kind] = [.invalidTask, .invalidUpdate, .invalidSEI, .taskNotFound, .taskExists, .invalidState,
                                 .staleSequence, .portInUse, .outputInUse, .tooManyTasks, .insufficientStorage, .shuttingDown, .storeUnavailable,
                                 .nodeUnavailable, .peerError, .internalError]
            guard let kind = named.first(where: { $0.code == code }) else { return nil }
            self = kind
        }
    }
}
