public import HearthCore

/// A write to apply in the namespace's serial writer.
public struct WriteRequest: Sendable {
    /// What the write does at ``WriteRequest/path``.
    public enum Operation: Sendable {
        /// PUT / DELETE: replace the node at the path.
        case set(ParsedWrite)
        /// POST: add the value as a new child of the path, named by a push id that the writer
        /// generates when it applies the write, so push ids sort in commit order. The echoed body
        /// is `{"name": id}`.
        case push(ParsedWrite)
        /// PATCH: replace each relative path (no two may overlap), then set the listed priorities
        /// (`"a/.priority": 3` entries).
        case update([(path: Path, value: ParsedWrite)], priorities: [(path: Path, priority: Leaf?)] = [])
        /// PUT to `…/.priority`.
        case setPriority(Leaf?, placeholder: ServerValue?)
    }

    /// The location written (for `.push`, the parent of the new child).
    public var path: Path
    /// What to write there.
    public var operation: Operation
    /// `if-match`: write only if the current ETag of `path` equals this. Needs read access to `path`
    /// (when rules apply), matching or not.
    public var ifMatch: String?
    /// Whether the caller wants the new ETag.
    public var wantsETag: Bool
    /// Security rules to check inside the transaction (nil = admin, no check).
    public var authorizer: (any WriteAuthorizer)?
    /// Write only if no committed write claimed this key before, and claim it in the same
    /// transaction (a function making its effect exactly-once). A repeat fails with `AlreadyApplied`.
    public var idempotencyKey: String?
    /// How many database triggers ran, one causing the next, before this write: 0 for a client's
    /// write, n for a write by a trigger whose event had depth n. The trigger events this write
    /// causes get depth n + 1, so a chain that never ends (a trigger writing to the location it
    /// watches) can be stopped.
    public var triggerDepth = 0
    /// Decides the operation inside the writer's transaction, from the data as that transaction sees it
    /// (see ``WriteRequest/computed(at:_:)``); nil for a request whose operation is given.
    public var compute: ComputeOperation?
    /// Outbox events enqueued in the write's own transaction when it commits (a push notification a
    /// function sends with its writes, say): a crash can delay them but never lose them, and a write that
    /// fails enqueues nothing.
    public var events: [QueuedEvent] = []

    /// Reads the data inside the writer's transaction and returns what to write there (nil: write nothing);
    /// it may add outbox events to `events`, enqueued when the request commits (also when it writes nothing).
    /// Runs on the serial writer, so nothing else can write between its reads and its write, on this node
    /// or on any other sharing the store; the namespace's other writes wait for it, so it must be quick and
    /// must not block. A throw fails this request only.
    public typealias ComputeOperation = @Sendable (_ data: any StoreReader, _ now: Int64, _ events: inout [QueuedEvent]) throws -> Operation?

    /// An outbox event a write enqueues: the function (or built-in handler, such as `$push`) that will
    /// run it and what it receives.
    public struct QueuedEvent: Sendable, Hashable {
        /// Who runs it.
        public var function: String
        /// What it receives (JSON).
        public var payload: [UInt8]

        /// An event for `function` carrying `payload`.
        public init(function: String, payload: [UInt8]) {
            self.function = function
            self.payload = payload
        }
    }

    /// A write whose operation at `path` is decided inside the writer's transaction by `compute`: an atomic
    /// read-modify-write of any number of locations, without retries. When `compute` returns nil the request
    /// commits nothing and answers with an empty update.
    public static func computed(at path: Path, _ compute: @escaping ComputeOperation) -> WriteRequest {
        var request = WriteRequest(path: path, operation: .update([], priorities: []))
        request.compute = compute
        return request
    }

    /// A request at trigger depth 0; by default unconditional, without ETag, unchecked (admin) and without an idempotency key.
    public init(
        path: Path, operation: Operation, ifMatch: String? = nil, wantsETag: Bool = false,
        authorizer: (any WriteAuthorizer)? = nil, idempotencyKey: String? = nil
    ) {
        self.idempotencyKey = idempotencyKey
        self.path = path
        self.operation = operation
        self.ifMatch = ifMatch
        self.wantsETag = wantsETag
        self.authorizer = authorizer
    }
}

/// Decides whether a write may happen, given the data as the writer's transaction sees it (so the
/// check and the write are atomic). Called with server values already resolved.
public protocol WriteAuthorizer: Sendable {
    /// Returns nil to allow, or the reason for a denial.
    /// - Parameters:
    ///   - writes: absolute paths with their new values (empty = delete); for a multi-path
    ///     update, every path, all-or-nothing.
    ///   - data: the data as the write's transaction sees it, before the write.
    ///   - now: the write's time, milliseconds since 1970 (the rules' `now`).
    func denial(for writes: [(path: Path, node: Node)], data: any StoreReader, now: Int64) -> String?

    /// Returns nil when the writer may read `path` (its value goes back in a failed `if-match`'s
    /// answer), or the reason it may not.
    func readDenial(at path: Path, data: any StoreReader, now: Int64) -> String?
}

/// A write refused by the security rules. Nothing of the request was written.
public struct PermissionDenied: Error, Sendable {
    /// Which rule decided (for development diagnostics only).
    public var reason: String

    /// A denial, with the rule's reason.
    public init(reason: String) { self.reason = reason }
}

/// What happened to a `WriteRequest`.
public enum WriteOutcome: Sendable, Hashable {
    /// Committed: what was written (the protocol edges encode it for their wire) and, when asked
    /// for, the location's new ETag.
    case committed(WriteEcho, etag: String?)
    /// `if-match` did not match: the current value and its ETag.
    case preconditionFailed(current: Node, etag: String)
}

/// What a committed write wrote, server values resolved: nodes and keys, never response bytes.
public enum WriteEcho: Sendable, Hashable {
    /// A set: the value now at the location. An increment the writer may not read is left out
    /// (the value shown is as if it were absent), so a write never reveals what only a reader may see.
    case value(Node)
    /// A push: the key the writer gave the new child.
    case pushed(Key)
    /// A multi-path update: each entry's value as above, then each priority set, in request order.
    case update(entries: [PatchEntry], priorities: [PriorityEntry])
    /// A priority set alone (nil: cleared).
    case priority(Leaf?)
}

/// A priority set by a multi-path update.
public struct PriorityEntry: Sendable, Hashable {
    /// The location, relative to the updated one.
    public var path: Path
    /// The new priority (nil: cleared).
    public var priority: Leaf?

    /// An entry setting the priority at `path`.
    public init(path: Path, priority: Leaf?) {
        self.path = path
        self.priority = priority
    }
}

extension Node {
    /// The ETag of a location: its hash, or `null_etag` when empty.
    public var etag: String { isEmpty ? "null_etag" : hash }
}
