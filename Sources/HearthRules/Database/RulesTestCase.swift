public import HearthCore

/// One table-driven rules case (the format of `hearth rules test` and of the rules corpus):
///
/// ```json
/// {"name": "owner writes", "auth": {"uid": "alice"}, "op": "set", "path": "/users/alice",
///  "value": {"name": "Alice"}, "data": {...}, "now": 1700000000000, "expect": "allow"}
/// ```
///
/// `op` is `read` (optional `query`: REST parameters such as `{"orderBy": "\"$key\"",
/// "limitToFirst": "2"}`), `set` (`value`; null deletes; server values allowed) or `update`
/// (`values`: relative paths → values). `auth` omitted or null = signed out. `data` is the database
/// before the operation. `expect` is `allow` or `deny`.
public struct RulesTestCase: Sendable {
    /// What the case asks the rules about.
    public enum Operation: Sendable {
        /// A read of ``RulesTestCase/path``, with the case's `query` when it gives one (nil: a plain read).
        case read(Query?)
        /// A set of `value` at ``RulesTestCase/path`` (null deletes); server values resolve at ``RulesTestCase/now``.
        case set(ParsedWrite)
        /// A multi-path update: each path is relative to ``RulesTestCase/path``, each value as in ``set(_:)``.
        case update([(path: Path, value: ParsedWrite)])
    }

    /// The case's `name` (`unnamed` when it has none), printed with its result.
    public var name: String
    /// Why the case expects what it does; printed when it fails.
    public var why: String?
    /// The rules' `auth` variable; nil (the `auth` member absent or null) is a signed-out caller.
    public var auth: JSONValue?
    /// What is asked: a read, a set or an update (`op`).
    public var operation: Operation
    /// Where the operation happens: an absolute, validated path.
    public var path: Path
    /// The database before the operation: the case's `data`, else the `defaultData` it was read with.
    public var data: Node
    /// The rules' `now` and the time server values resolve to, in milliseconds since 1970.
    public var now: Int64
    /// Whether the case expects `allow` (true) or `deny` (false).
    public var expectAllowed: Bool

    /// The `now` of a case that gives none: 2023-11-14T22:13:20Z, fixed so that a case answers the same on every run.
    public static let defaultNow: Int64 = 1_700_000_000_000

    /// Reads a case; `defaultData` is used when the case has no `data` of its own.
    public init(json: JSONValue, defaultData: Node = .empty) throws(ValidationError) {
        guard case .object = json else { throw ValidationError("A case is an object") }
        name = json["name"]?.stringValue ?? "unnamed"
        why = json["why"]?.stringValue
        auth = json["auth"].flatMap { $0 == .null ? nil : $0 }
        guard let p = json["path"]?.stringValue else { throw ValidationError("Case \(name): missing \"path\"") }
        path = try Path.validated(p)
        data = try json["data"].map { (d) throws(ValidationError) in try Node(json: d) } ?? defaultData
        switch json["now"] {
        case .int(let n)?: now = n
        case nil: now = Self.defaultNow
        default: throw ValidationError("Case \(name): \"now\" must be an integer (ms)")
        }
        switch json["expect"]?.stringValue {
        case "allow"?: expectAllowed = true
        case "deny"?: expectAllowed = false
        default: throw ValidationError("Case \(name): \"expect\" must be \"allow\" or \"deny\"")
        }
        switch json["op"]?.stringValue {
        case "read"?:
            guard case .object(let members)? = json["query"] else {
                operation = .read(nil)
                break
            }
            var parameters: [String: String] = [:]
            for m in members {
                guard let s = m.value.stringValue else { throw ValidationError("Case \(name): query parameters are strings") }
                parameters[m.key] = s
            }
            do {
                operation = .read(try Query(parameters: parameters))
            } catch {
                throw ValidationError("Case \(name): \(error)")
            }
        case "set"?:
            operation = .set(try Node.parseWrite(json["value"] ?? .null, depth: path.count))
        case "update"?:
            guard case .object(let members)? = json["values"] else { throw ValidationError("Case \(name): update needs \"values\"") }
            var entries: [(Path, ParsedWrite)] = []
            for m in members {
                let relative = try Path.validated(m.key)
                entries.append((relative, try Node.parseWrite(m.value, depth: path.count + relative.count)))
            }
            operation = .update(entries)
        default:
            throw ValidationError("Case \(name): \"op\" must be read, set or update")
        }
    }

    /// Evaluates the case against `rules`. Throws when the write cannot be made at all (an increment whose
    /// result is out of range), as the server refuses it before its rules are asked.
    public func evaluate(_ rules: RuleSet) throws(ValidationError) -> RuleDecision {
        let source = MemoryRuleData(data)
        switch operation {
        case .read(let query):
            return rules.canRead(path, auth: auth, query: query, now: now, data: source)
        case .set(let parsed):
            let node = try Self.resolve(parsed, at: path, data: data, now: now)
            return rules.canWrite([(path, node)], auth: auth, now: now, data: source)
        case .update(let entries):
            var writes: [(Path, Node)] = []
            for entry in entries {
                let target = path.appending(entry.path)
                writes.append((target, try Self.resolve(entry.value, at: target, data: data, now: now)))
            }
            return rules.canWrite(writes, auth: auth, now: now, data: source)
        }
    }

    private static func resolve(_ parsed: ParsedWrite, at target: Path, data: Node, now: Int64) throws(ValidationError) -> Node {
        do {
            return try parsed.resolved(now: now) { data.child(at: target.appending($0)) }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
