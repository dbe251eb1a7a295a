import TesseraStore

/// Where one API request is answered, decided once from what this node knows. Pure: the verbs
/// of `ClusterService` gather the `Facts` (does the task run here, is the store known down, did
/// another node pass the request on, what the store holds), then carry the route out.
///
/// The rules in one place:
/// - A request another node passed on is answered here or refused; it is never passed on again.
/// - While the store is known down, writes are refused at once, and reads about a task that does
///   not run here go to every node this one reaches (the one that runs it answers).
/// - Otherwise a task that runs here is answered here; one that a live node runs is passed on to
///   it; one whose node is lost (or that waits for a node, or stopped) is answered from the store.
public enum TaskRoute: Sendable, Equatable {
    /// This node answers (the task runs here, or the request came from another node).
    case local
    /// The live node that runs the task answers.
    case owner(NodeInfo)
    /// The live node that runs the task answers; if it does not, the store does (a read of the
    /// status, or a stop that the next node to claim the task sees in the store).
    case ownerElseStore(NodeInfo)
    /// The store's record answers (the task's node is lost, or it waits for one, or it stopped).
    case store
    /// The store is down: every node this one reaches is asked; the one that runs the task answers.
    case reachable
    /// A new task: to the node placement picks (`PlacementRound`).
    case place
    case refuse(ServiceError)

    public enum Verb: Sendable, Equatable {
        case create, list, status, update, stop, snapshot, injectSEI

        /// The store is read for these: they name a task, which may run on another node.
        public var namesATask: Bool { self != .create && self != .list }
    }

    /// What the store holds of the task.
    public enum Stored: Sendable, Equatable {
        /// Its record, and the nodes alive now (in the store, or answering at their URLs).
        case found(StoredTask, alive: [String: NodeInfo])
        case missing
        /// The store could not be read.
        case failed(ServiceError)
    }

    public struct Facts: Sendable, Equatable {
        public var nodeId: String
        /// Another node passed the request on.
        public var forwarded: Bool
        /// The last store call failed.
        public var storeDown: Bool
        /// This node is draining or shut down.
        public var leaving: Bool
        /// The task runs on this node.
        public var runsHere: Bool
        /// Nil when the store was not read (see `mustReadStore`).
        public var stored: Stored?

        public init(nodeId: String, forwarded: Bool, storeDown: Bool, leaving: Bool = false, runsHere: Bool = false,
                    stored: Stored? = nil) {
            self.nodeId = nodeId; self.forwarded = forwarded; self.storeDown = storeDown; self.leaving = leaving
            self.runsHere = runsHere; self.stored = stored
        }

        /// Whether the route of `verb` needs the store's record: a task that does not run here,
        /// with the store up.
        public func mustReadStore(for verb: Verb) -> Bool { verb.namesATask && !runsHere && !storeDown }

        /// The store's record, when it was read and found.
        public var record: StoredTask? {
            if case .found(let record, _) = stored { return record }
            return nil
        }

        /// The live node that runs the task, when it is another one and the request was not
        /// passed on already.
        var owner: NodeInfo? {
            guard !forwarded, case .found(let record, let alive) = stored, let node = record.node, node != nodeId else { return nil }
            return alive[node]
        }
    }

    /// Writes go to the store first: while it is known down they are refused at once.
    public static let storeDownRefusal = ServiceError.storeUnavailable(TaskStoreError("the last calls failed; retry once it is back"))

    public static func decide(_ verb: Verb, taskId: String = "", _ facts: Facts) -> TaskRoute {
        switch verb {
        case .create:
            if facts.leaving { return .refuse(.shuttingDown) }
            if facts.storeDown { return .refuse(storeDownRefusal) }
            return facts.forwarded ? .local : .place
        case .list:
            if facts.forwarded { return .local }
            return facts.storeDown ? .reachable : .store
        case .update, .stop:
            if facts.storeDown { return .refuse(storeDownRefusal) }
            if facts.runsHere { return .local }
        case .status, .snapshot, .injectSEI:
            if facts.runsHere { return .local }
            if facts.storeDown { return facts.forwarded ? .refuse(.taskNotFound(taskId)) : .reachable }
        }
        let record: StoredTask
        switch facts.stored {
        case .found(let found, _): record = found
        case .missing: return .refuse(.taskNotFound(taskId))
        case .failed(let error): return .refuse(error)
        case nil: return .refuse(storeDownRefusal)
        }
        let owner = facts.owner
        switch verb {
        case .status:
            return owner.map(TaskRoute.ownerElseStore) ?? .store
        case .update:
            if record.desired == .stopped { return .refuse(.invalidState("task \"\(taskId)\" is stopped")) }
            return owner.map(TaskRoute.owner)
                ?? .refuse(.invalidState("task \"\(taskId)\" is moving to another node; retry in a few seconds"))
        case .stop:
            // Its node is lost (or the task waits for one): the store stops it; a node that claims
            // it meanwhile sees the stop on its next round.
            guard record.desired == .running, let owner else { return .store }
            return .ownerElseStore(owner)
        case .snapshot, .injectSEI:
            guard record.desired == .running, let owner else { return .refuse(.invalidState("task \"\(taskId)\" is not running")) }
            return .owner(owner)
        case .create, .list:
            return .refuse(storeDownRefusal)
        }
    }
}
