/// A server value placeholder found while converting a write (`{".sv": ...}`).
public enum ServerValue: Sendable, Hashable {
    /// `{".sv": "timestamp"}`: the server's time when the write is applied, in milliseconds since 1970.
    case timestamp
    /// `{".sv": {"increment": n}}`: the current number plus `n` (a non-number counts as 0).
    case increment(Leaf)
}

/// Where a server value must be substituted after parsing.
public struct ServerValuePlaceholder: Sendable, Hashable {
    /// Location relative to the write's root.
    public var path: Path
    /// Which server value to substitute.
    public var value: ServerValue
    /// True when the placeholder is the node's priority rather than its value.
    public var isPriority: Bool
    /// The priority to give the resolved value (`{".value": {".sv": …}, ".priority": p}`).
    public var priority: Leaf?

    /// A placeholder at `path`; `priority` is the priority written beside a `.value` placeholder.
    public init(path: Path, value: ServerValue, isPriority: Bool, priority: Leaf? = nil) {
        self.path = path
        self.value = value
        self.isPriority = isPriority
        self.priority = priority
    }
}

/// A value parsed from a write request, with its server-value placeholders.
public struct ParsedWrite: Sendable, Hashable {
    /// The value with every server value still missing (an empty node where one was written).
    public var node: Node
    /// The server values to substitute, in the order they appeared in the JSON.
    public var placeholders: [ServerValuePlaceholder]

    /// A parsed write of `node` with its `placeholders`.
    public init(node: Node, placeholders: [ServerValuePlaceholder] = []) {
        self.node = node
        self.placeholders = placeholders
    }
}

extension Node {
    /// Converts user JSON into a normalised node, rejecting invalid keys, depth and metadata.
    ///
    /// `depth` is the depth of the write location (the value's nesting adds to it).
    public static func parseWrite(_ json: JSONValue, depth: Int = 0) throws(ValidationError) -> ParsedWrite {
        var placeholders: [ServerValuePlaceholder] = []
        var path: [Key] = []
        let node = try convert(json, depth: depth, path: &path, placeholders: &placeholders)
        return ParsedWrite(node: node, placeholders: placeholders)
    }

    /// Converts JSON known to contain no server values (e.g. read back from storage).
    public init(json: JSONValue) throws(ValidationError) {
        let parsed = try Node.parseWrite(json)
        guard parsed.placeholders.isEmpty else { throw ValidationError("Unexpected server value") }
        self = parsed.node
    }

    static func serverValue(_ spec: JSONValue) throws(ValidationError) -> ServerValue {
        switch spec {
        case .string("timestamp"): return .timestamp
        case .object(let members) where members.count == 1 && members[0].key == "increment":
            switch members[0].value {
            case .int(let i): return .increment(.int(i))
            case .double(let d): return .increment(.number(d))
            default: throw ValidationError("Invalid data; increment requires a number")
            }
        default: throw ValidationError("Invalid data; unrecognized server value")
        }
    }

    static func priority(_ json: JSONValue, path: [Key], placeholders: inout [ServerValuePlaceholder]) throws(ValidationError) -> Leaf? {
        switch json {
        case .null: return nil
        case .int, .double, .string: return Leaf(json: json)
        case .object(let m) where m.count == 1 && m[0].key == ".sv":
            placeholders.append(.init(path: Path(path), value: try serverValue(m[0].value), isPriority: true))
            return nil
        default: throw ValidationError("Invalid data; priority must be a number, a string or null")
        }
    }

    private static func convert(
        _ json: JSONValue, depth: Int, path: inout [Key], placeholders: inout [ServerValuePlaceholder]
    ) throws(ValidationError) -> Node {
        guard depth <= Limits.maxDepth else { throw ValidationError("Invalid data; path is too deep (over 32 levels)") }
        switch json {
        case .null: return .empty
        case .bool, .int, .double, .string: return .leaf(try checkedLeaf(json))
        case .array(let elements):
            var c = Children()
            for (i, e) in elements.enumerated() {
                let key = Key(String(i))
                path.append(key)
                c.appendSorted(key, try convert(e, depth: depth + 1, path: &path, placeholders: &placeholders))
                path.removeLast()
            }
            return Node(.children(c))
        case .object(let members):
            var priorityJSON: JSONValue?
            var valueJSON: JSONValue?
            // Collected, then sorted once: keys may arrive in any order (descending ones would make
            // inserting one by one quadratic).
            var pairs: [(Key, Node)] = []
            pairs.reserveCapacity(members.count)
            let firstPlaceholder = placeholders.count
            /// Which placeholders each child made: a later member of the same name replaces an earlier
            /// one, its server values too.
            var made: [Range<Int>] = []
            for m in members {
                switch m.key {
                case ".priority": priorityJSON = m.value
                case ".value": valueJSON = m.value
                case ".sv":
                    guard members.count == 1 else { throw ValidationError("Invalid data; .sv must be the only key") }
                    placeholders.append(.init(path: Path(path), value: try serverValue(m.value), isPriority: false))
                    return .empty
                default:
                    let key = try Key.validated(m.key)
                    path.append(key)
                    let start = placeholders.count
                    pairs.append((key, try convert(m.value, depth: depth + 1, path: &path, placeholders: &placeholders)))
                    made.append(start..<placeholders.count)
                    path.removeLast()
                }
            }
            let c = Children(unsorted: pairs)
            if placeholders.count > firstPlaceholder, pairs.count > 1 { dropReplaced(pairs, made, from: &placeholders) }
            let childPlaceholders = placeholders.count > firstPlaceholder
            var p: Leaf?
            if let priorityJSON { p = try priority(priorityJSON, path: path, placeholders: &placeholders) }
            if let valueJSON {
                // A child that is a server value is a child too, though its node is empty until resolved.
                guard c.isEmpty, !childPlaceholders else {
                    throw ValidationError("Invalid data; .value cannot be combined with child keys")
                }
                switch valueJSON {
                case .object, .array:
                    let before = placeholders.count
                    let inner = try convert(valueJSON, depth: depth, path: &path, placeholders: &placeholders)
                    // A server value as `.value` keeps the priority given beside it.
                    if inner.isEmpty, placeholders.count == before + 1, placeholders[before].path == Path(path) {
                        placeholders[before].priority = p
                    }
                    return inner.withPriority(p)
                case .null: return .empty
                default: return .leaf(try checkedLeaf(valueJSON), priority: p)
                }
            }
            return Node(.children(c), priority: p)
        }
    }

    /// Removes the placeholders of children that a later member of the same name replaced
    /// (`{"a":{".sv":"timestamp"},"a":1}` is `{"a":1}`).
    private static func dropReplaced(_ pairs: [(Key, Node)], _ made: [Range<Int>], from placeholders: inout [ServerValuePlaceholder]) {
        var seen = Set<Key>()
        var replaced: [Range<Int>] = []
        for i in pairs.indices.reversed() where !seen.insert(pairs[i].0).inserted && !made[i].isEmpty {
            replaced.append(made[i])
        }
        guard !replaced.isEmpty else { return }
        var keep = [Bool](repeating: true, count: placeholders.count)
        for range in replaced { for i in range { keep[i] = false } }
        placeholders = placeholders.indices.filter { keep[$0] }.map { placeholders[$0] }
    }

    /// A primitive as a leaf; a string over `Limits.maxStringBytes` is refused.
    private static func checkedLeaf(_ json: JSONValue) throws(ValidationError) -> Leaf {
        if case .string(let s) = json, s.utf8.count > Limits.maxStringBytes {
            throw ValidationError("Invalid data; a string value is over \(Limits.maxStringBytes) bytes (10 MiB)")
        }
        return Leaf(json: json)!
    }
}
