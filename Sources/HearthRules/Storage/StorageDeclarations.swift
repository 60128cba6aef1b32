/// A set of request methods; `read` = get + list, `write` = create + update + delete.
struct StorageMethodSet: OptionSet, Sendable {
    let rawValue: UInt8

    static let get = StorageMethodSet(rawValue: 1)
    static let list = StorageMethodSet(rawValue: 2)
    static let create = StorageMethodSet(rawValue: 4)
    static let update = StorageMethodSet(rawValue: 8)
    static let delete = StorageMethodSet(rawValue: 16)
    static let read: StorageMethodSet = [.get, .list]
    static let write: StorageMethodSet = [.create, .update, .delete]

    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `read`, `write` or a granular method name as written after `allow`.
    init?(keyword: String) {
        switch keyword {
        case "read": self = .read
        case "write": self = .write
        case "get": self = .get
        case "list": self = .list
        case "create": self = .create
        case "update": self = .update
        case "delete": self = .delete
        default: return nil
        }
    }
}

/// One segment of a `match` path.
enum StoragePatternSegment: Sendable {
    case literal(String)
    /// `{name}`: exactly one segment, bound as a string.
    case single(String)
    /// `{name=**}`: a run of segments (v2: zero or more; v1: one or more), bound as a path.
    case recursive(String)

    var text: String {
        switch self {
        case .literal(let s): s
        case .single(let n): "{" + n + "}"
        case .recursive(let n): "{" + n + "=**}"
        }
    }
}

/// A compiled `allow` statement.
struct StorageAllowRule: Sendable {
    let methods: StorageMethodSet
    /// nil for `allow read;` (always true).
    let condition: StorageExpr?
    let line: Int
    let column: Int
    /// The statement as written, whitespace collapsed (for decision reasons).
    let text: String
    /// The full path of the enclosing `match` block, e.g. `/b/{bucket}/o/users/{uid}`.
    let matchPath: String
}

/// A compiled `match` block, flattened: its pattern is the concatenation of every enclosing
/// block's path.
struct StorageMatchBlock: Sendable {
    let pattern: [StoragePatternSegment]
    let allows: [StorageAllowRule]
}

/// A compiled user function. Parameters occupy local slots 0 ..< arity, `let` bindings follow.
struct StorageFunction: Sendable {
    let name: String
    let arity: Int
    let lets: [StorageExpr]
    let body: StorageExpr
}

/// What the parser produces before names are resolved.
struct StorageSyntaxBlock {
    var segments: [StoragePatternSegment] = []
    var segmentOffsets: [Int] = []
    var offset = 0
    var functions: [StorageSyntaxFunction] = []
    var allows: [StorageSyntaxAllow] = []
    var children: [StorageSyntaxBlock] = []
}

struct StorageSyntaxFunction {
    var name: String
    var offset: Int
    var parameters: [(name: String, offset: Int)]
    var lets: [(name: String, offset: Int, value: StorageExpr)]
    var body: StorageExpr
}

struct StorageSyntaxAllow {
    var methods: StorageMethodSet
    var condition: StorageExpr?
    var offset: Int
    var text: String
}
