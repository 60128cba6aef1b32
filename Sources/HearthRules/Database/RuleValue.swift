import HearthCore

/// What a rule expression evaluates to.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// `val()` of a node with children: non-null, equal to nothing.
    case opaqueObject
    /// `auth`, `auth.token` and nested claim objects.
    case map([JSONMember])
    case list([JSONValue])
    case snapshot(RuleSnapshot)

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .object(let m): self = .map(m)
        case .array(let a): self = .list(a)
        }
    }

    init(leaf: Leaf?) {
        switch leaf {
        case nil: self = .null
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .number(Double(i))
        case .double(let d)?: self = .number(d)
        case .string(let s)?: self = .string(s)
        }
    }
}

/// A rules snapshot: a location in the data before (`root`, `data`) or after (`newData`) a write.
struct RuleSnapshot: Sendable {
    enum Side: Sendable { case before, after }
    var side: Side
    var path: Path
}
