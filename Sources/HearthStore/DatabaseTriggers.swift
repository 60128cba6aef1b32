public import HearthCore

/// Which changes of a location fire a trigger.
public enum ValueChange: String, Sendable, Hashable, CaseIterable {
    /// Nothing was there; now something is.
    case created
    /// Something was there and still is, with a different value.
    case updated
    /// Something was there; now nothing is.
    case deleted
    /// Any of the three.
    case written

    /// Whether a change from `before` to `after` (known to differ) fires this kind.
    func fires(before: Node, after: Node) -> Bool {
        switch self {
        case .created: before.isEmpty
        case .updated: !before.isEmpty && !after.isEmpty
        case .deleted: after.isEmpty
        case .written: true
        }
    }
}

/// A database trigger as the writer sees it: a function name, the locations it watches and the
/// kinds of change it wants.
public struct DatabaseTrigger: Sendable, Hashable {
    /// The name of the function the event is for.
    public var function: String
    /// The locations watched; a write fires for each matching location whose value it changes.
    public var pattern: PathPattern
    /// Which changes fire it.
    public var change: ValueChange

    /// A trigger running `function` on `change` at `pattern`.
    public init(function: String, pattern: PathPattern, change: ValueChange) {
        self.function = function
        self.pattern = pattern
        self.change = change
    }
}

/// Finds the trigger events a write causes and enqueues them in the write's own transaction.
///
/// Before a request is applied, the current value of every watched location it can touch is read;
/// after, the new value. A location whose value changed fires each trigger whose kind matches, with
/// an outbox event carrying the path, both values (export format, so priorities survive) and the
/// event's trigger depth (see ``WriteRequest/triggerDepth``).
struct TriggerRecorder: Sendable {
    /// Triggers grouped by pattern: one capture serves every trigger on the same locations.
    private let groups: [(pattern: PathPattern, triggers: [DatabaseTrigger])]

    init?(_ triggers: [DatabaseTrigger]) {
        guard !triggers.isEmpty else { return nil }
        var groups: [(pattern: PathPattern, triggers: [DatabaseTrigger])] = []
        for t in triggers {
            if let i = groups.firstIndex(where: { $0.pattern == t.pattern }) {
                groups[i].triggers.append(t)
            } else {
                groups.append((t.pattern, [t]))
            }
        }
        self.groups = groups
    }

    /// Values before the write, per pattern group.
    typealias Capture = [[Path: Node]]

    /// The locations a request writes (absolute), and whether it is a push (which only adds a
    /// child that did not exist, named when applied).
    private static func targets(_ request: WriteRequest) -> (paths: [Path], push: Bool) {
        switch request.operation {
        case .set, .setPriority: ([request.path], false)
        case .push: ([request.path], true)
        case .update(let entries, let priorities):
            (entries.map { request.path.appending($0.path) } + priorities.map { request.path.appending($0.path) }, false)
        }
    }

    func before(_ request: WriteRequest, tx: any StoreReader) throws -> Capture {
        let (paths, push) = Self.targets(request)
        return try groups.map { group in
            var values: [Path: Node] = [:]
            for path in paths {
                if path.count >= group.pattern.depth {
                    let location = Path(Array(path.keys.prefix(group.pattern.depth)))
                    if values[location] == nil, group.pattern.match(location) != nil { values[location] = try tx.read(location) }
                } else if !push, group.pattern.matchesPrefix(of: path, count: path.count) {
                    // A push only adds a new child: nothing below the parent existed there before.
                    let node = try tx.read(path)
                    for location in group.pattern.locations(touchedBy: path, in: node) where values[location] == nil {
                        values[location] = node.child(at: path.relative(location) ?? .root)
                    }
                }
            }
            return values
        }
    }

    /// Enqueues the events for `change` (applied after `capture` was taken), each with trigger
    /// depth `depth`. Returns how many.
    func record(_ change: Change, before capture: Capture, tx: any StoreTransaction, now: Int64, depth: Int) throws -> Int {
        let written: [Path] = switch change.kind {
        case .put: [change.path]
        case .patch(let entries): entries.map { change.path.appending($0.path) }
        }
        var count = 0
        for (group, before) in zip(groups, capture) {
            var locations = Set(before.keys)
            var afterValues: [Path: Node] = [:]
            for path in written {
                if path.count >= group.pattern.depth {
                    let location = Path(Array(path.keys.prefix(group.pattern.depth)))
                    if group.pattern.match(location) != nil { locations.insert(location) }
                } else if group.pattern.matchesPrefix(of: path, count: path.count) {
                    let node = try tx.read(path)
                    for location in group.pattern.locations(touchedBy: path, in: node) {
                        locations.insert(location)
                        afterValues[location] = node.child(at: path.relative(location) ?? .root)
                    }
                }
            }
            // Commit order within one request does not matter; path order keeps the outbox stable.
            for location in locations.sorted(by: { $0.keys.lexicographicallyPrecedes($1.keys) }) {
                let old = before[location] ?? .empty
                let new = try afterValues[location] ?? tx.read(location)
                guard old != new else { continue }
                var payload: [UInt8]?
                for trigger in group.triggers where trigger.change.fires(before: old, after: new) {
                    let bytes = payload ?? Self.payload(path: location, before: old, after: new, time: now, depth: depth)
                    payload = bytes
                    try tx.enqueueEvent(function: trigger.function, payload: bytes, at: now)
                    count += 1
                }
            }
        }
        return count
    }

    /// `{"path":"/a/b","before":…,"after":…,"time":ms,"depth":n}`.
    static func payload(path: Path, before: Node, after: Node, time: Int64, depth: Int) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("path")
        w.write(path.description)
        w.separator(first: false)
        w.key("before")
        w.write(before, format: .export)
        w.separator(first: false)
        w.key("after")
        w.write(after, format: .export)
        w.separator(first: false)
        w.key("time")
        w.write(time)
        w.separator(first: false)
        w.key("depth")
        w.write(Int64(depth))
        w.endObject(empty: false)
        return w.bytes
    }
}
