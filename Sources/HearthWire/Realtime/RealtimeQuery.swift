public import HearthCore

/// Queries on the realtime wire: `{"sp","sn","sin","ep","en","ein","l","vf","i"}`.
extension Query {
    /// The key name that stands for "before every key" in `sn`/`en`.
    public static let minName = "[MIN_NAME]"
    /// The key name that stands for "after every key" in `sn`/`en`.
    public static let maxName = "[MAX_NAME]"

    /// Reads a wire query object. Absent `sin`/`ein` mean inclusive (older clients omit them).
    public init(wireObject json: JSONValue) throws(QueryError) {
        guard case .object = json else { throw QueryError("Query must be an object") }
        let order: Order
        switch json["i"] {
        case nil, .string(".priority")?: order = .priority
        case .string(".key")?: order = .key
        case .string(".value")?: order = .value
        case .string(let child)?:
            guard let p = try? Path.validated(child), !p.isRoot else { throw QueryError("Invalid query index \(child)") }
            order = .child(p)
        default: throw QueryError("Query index must be a string")
        }
        let start = try Query.wireBound(value: json["sp"], name: json["sn"], inclusive: json["sin"], isStart: true)
        let end = try Query.wireBound(value: json["ep"], name: json["en"], inclusive: json["ein"], isStart: false)
        let limit: Limit?
        if let l = json["l"] {
            guard case .int(let n) = l, n >= 0, let count = Int(exactly: n) else { throw QueryError("Query limit must be a non-negative integer") }
            switch json["vf"] {
            case nil, .string("l")?: limit = .first(count)
            case .string("r")?: limit = .last(count)
            default: throw QueryError("Query view-from must be \"l\" or \"r\"")
            }
        } else {
            limit = nil
        }
        self.init(order: order, start: start, end: end, limit: limit)
    }

    static func wireBound(value: JSONValue?, name: JSONValue?, inclusive: JSONValue?, isStart: Bool) throws(QueryError) -> Bound? {
        guard let value else {
            guard name == nil else { throw QueryError("Query bound name without a value") }
            return nil
        }
        let leaf: Leaf?
        switch value {
        case .null: leaf = nil
        case .array, .object: throw QueryError("Query bound must be a JSON primitive")
        default: leaf = Leaf(json: value)
        }
        var strict: Bool
        switch inclusive {
        case nil, .bool(true)?: strict = false
        case .bool(false)?: strict = true
        default: throw QueryError("Query inclusiveness must be a boolean")
        }
        var key: Key?
        switch name {
        case nil: break
        case .string(let n)? where n == Query.minName:
            // Before every key with this value: a start includes them all, an end excludes them all.
            if !isStart { strict = true }
        case .string(let n)? where n == Query.maxName:
            // After every key with this value: a start excludes them all, an end includes them all.
            if isStart { strict = true } else { strict = false }
        case .string(let n)?:
            guard let k = try? Key.validated(n) else { throw QueryError("Invalid key in query bound") }
            key = k
        default: throw QueryError("Query bound name must be a string")
        }
        return Bound(value: leaf, key: key, strict: strict)
    }

    /// The wire object for this query (what an SDK sends with a tagged listen or a get).
    public var wireObject: JSONValue {
        var members: [JSONMember] = []
        if let start {
            members.append(JSONMember("sp", start.value?.json ?? .null))
            if let key = start.key { members.append(JSONMember("sn", .string(key.string))) }
            members.append(JSONMember("sin", .bool(!start.strict)))
        }
        if let end {
            members.append(JSONMember("ep", end.value?.json ?? .null))
            if let key = end.key { members.append(JSONMember("en", .string(key.string))) }
            members.append(JSONMember("ein", .bool(!end.strict)))
        }
        if let limit {
            switch limit {
            case .first(let n):
                members.append(JSONMember("l", .int(Int64(n))))
                members.append(JSONMember("vf", .string("l")))
            case .last(let n):
                members.append(JSONMember("l", .int(Int64(n))))
                members.append(JSONMember("vf", .string("r")))
            }
        }
        switch order {
        case .priority: break
        case .key: members.append(JSONMember("i", .string(".key")))
        case .value: members.append(JSONMember("i", .string(".value")))
        case .child(let p): members.append(JSONMember("i", .string(p.keys.map(\.string).joined(separator: "/"))))
        }
        return .object(members)
    }
}
