public import HearthCore

/// The outcome of a rules check, with what decided it (for `--dev` diagnostics; never shown in
/// production). Building a decision allocates nothing; `reason` formats on demand.
public struct RuleDecision: Sendable {
    enum Basis: Sendable {
        /// This rule granted.
        case granted(CompiledRule)
        /// Nothing granted; `lastFalse` is the deepest rule that evaluated false, if any.
        case notGranted(operation: StaticString, path: Path, lastFalse: CompiledRule?)
        /// A `.validate` failed at a location.
        case invalid(CompiledRule, at: Path)
        /// An empty multi-path update: nothing to check.
        case nothingWritten
    }

    /// Whether the operation may go ahead; ``reason`` says why, either way.
    public let allowed: Bool
    let basis: Basis

    /// Which rule decided, e.g. `/users/$uid/.write: auth.uid === $uid`, or why nothing granted.
    public var reason: String {
        switch basis {
        case .granted(let rule): return "\(rule.location): \(rule.text)"
        case .notGranted(let operation, let path, let lastFalse?):
            return "no .\(operation) rule granted \(path); \(lastFalse.location): \(lastFalse.text) was false"
        case .notGranted(let operation, let path, nil):
            return "no .\(operation) rule on the way to \(path)"
        case .invalid(let rule, let path):
            return "\(rule.location): \(rule.text) failed at \(path)"
        case .nothingWritten:
            return "nothing is written"
        }
    }
}

/// A rule could not be evaluated (type error, null where a value is needed, data unreadable):
/// the rule counts as false.
struct EvaluationError: Error {}

extension RuleSet {
    /// Whether `auth` may read `path` (with `query`, nil for a plain read). Rules are not filters:
    /// only `.read` rules from the root down to `path` count.
    public func canRead(
        _ path: Path, auth: JSONValue?, query: Query? = nil, now: Int64, data: any RuleDataSource
    ) -> RuleDecision {
        var evaluator = Evaluator(auth: auth, now: now, before: data, after: nil, query: QueryValues(query))
        evaluator.target = path
        var node = root
        var depth = 0
        var lastFalse: CompiledRule?
        while true {
            if let rule = node.read {
                evaluator.depth = depth
                if evaluator.check(rule) { return RuleDecision(allowed: true, basis: .granted(rule)) }
                lastFalse = rule
            }
            guard depth < path.count, let next = node.child(path.keys[depth].string) else { break }
            if next.captures { evaluator.captures.append(path.keys[depth].string) }
            node = next.node
            depth += 1
        }
        return RuleDecision(allowed: false, basis: .notGranted(operation: "read", path: path, lastFalse: lastFalse))
    }

    /// Whether `auth` may make these writes (one PUT/POST/DELETE, or every path of a multi-path
    /// update; paths absolute, values with server values already resolved, empty = delete).
    /// All-or-nothing: one denied path denies the whole operation.
    public func canWrite(
        _ writes: [(path: Path, node: Node)], auth: JSONValue?, now: Int64, data: any RuleDataSource
    ) -> RuleDecision {
        // An empty update (`PATCH {}`, `m` with `{}`) writes nothing, so no rule can object: Firebase answers it as
        // a no-op. (It used to reach `granted!` below with nothing granted and stop the server.)
        guard !writes.isEmpty else { return RuleDecision(allowed: true, basis: .nothingWritten) }
        let overlay = Overlay(base: data, writes: writes)
        var evaluator = Evaluator(auth: auth, now: now, before: data, after: overlay, query: QueryValues(nil))
        // 1. Every path needs a granting .write on the way down to it.
        var granted: CompiledRule?
        for w in writes {
            evaluator.captures.removeAll(keepingCapacity: true)
            evaluator.target = w.path
            var node = root
            var depth = 0
            var lastFalse: CompiledRule?
            granted = nil
            while true {
                if let rule = node.write {
                    evaluator.depth = depth
                    if evaluator.check(rule) {
                        granted = rule
                        break
                    }
                    lastFalse = rule
                }
                guard depth < w.path.count, let next = node.child(w.path.keys[depth].string) else { break }
                if next.captures { evaluator.captures.append(w.path.keys[depth].string) }
                node = next.node
                depth += 1
            }
            if granted == nil {
                return RuleDecision(allowed: false, basis: .notGranted(operation: "write", path: w.path, lastFalse: lastFalse))
            }
        }
        // 2. Every .validate on the way to each path and under it, where the new data exists.
        var checked = Set<Path>()
        for w in writes {
            evaluator.captures.removeAll(keepingCapacity: true)
            evaluator.target = w.path
            var node = root
            var depth = 0
            while true {
                if let rule = node.validate {
                    let location = Path(Array(w.path.keys[..<depth]))
                    if checked.insert(location).inserted {
                        let exists = (try? overlay.summary(at: location)).map { $0 != .absent } ?? true
                        evaluator.depth = depth
                        if exists, !evaluator.check(rule) {
                            return RuleDecision(allowed: false, basis: .invalid(rule, at: location))
                        }
                    }
                }
                if depth == w.path.count {
                    if let failure = validateBelow(node, location: w.path, written: w.node, evaluator: &evaluator) {
                        return failure
                    }
                    break
                }
                guard let next = node.child(w.path.keys[depth].string) else { break }
                if next.captures { evaluator.captures.append(w.path.keys[depth].string) }
                node = next.node
                depth += 1
            }
        }
        guard let granted else {
            return RuleDecision(allowed: false, basis: .notGranted(operation: "write", path: writes[0].path, lastFalse: nil))
        }
        return RuleDecision(allowed: true, basis: .granted(granted))
    }

    /// Runs `.validate` for every present node under a written location that has rules.
    private func validateBelow(_ node: RuleNode, location: Path, written: Node, evaluator: inout Evaluator) -> RuleDecision? {
        if node.children.isEmpty && node.wildcard == nil { return nil }
        for (key, child) in written.children {
            guard let next = node.child(key.string) else { continue }
            if next.captures { evaluator.captures.append(key.string) }
            defer { if next.captures { evaluator.captures.removeLast() } }
            let childLocation = location.child(key)
            if let rule = next.node.validate {
                evaluator.target = childLocation
                evaluator.depth = childLocation.count
                if !evaluator.check(rule) { return RuleDecision(allowed: false, basis: .invalid(rule, at: childLocation)) }
            }
            if let failure = validateBelow(next.node, location: childLocation, written: child, evaluator: &evaluator) {
                return failure
            }
        }
        return nil
    }
}

/// The `query` variable of `.read` rules.
struct QueryValues {
    var orderByKey = true
    var orderByValue = false
    var orderByPriority = false
    var orderByChild: RuleValue = .null
    var startAt: RuleValue = .null
    var endAt: RuleValue = .null
    var equalTo: RuleValue = .null
    var limitToFirst: RuleValue = .null
    var limitToLast: RuleValue = .null

    init(_ query: Query?) {
        guard let query else { return }
        orderByKey = false
        switch query.order {
        case .key: orderByKey = true
        case .value: orderByValue = true
        case .priority: orderByPriority = true
        case .child(let p): orderByChild = .string(p.keys.map(\.string).joined(separator: "/"))
        }
        if let s = query.start, let e = query.end, s == e, !s.strict {
            equalTo = RuleValue(leaf: s.value)
        } else {
            if let s = query.start { startAt = RuleValue(leaf: s.value) }
            if let e = query.end { endAt = RuleValue(leaf: e.value) }
        }
        switch query.limit {
        case .first(let n)?: limitToFirst = .number(Double(n))
        case .last(let n)?: limitToLast = .number(Double(n))
        case nil: break
        }
    }

    func value(_ field: QueryField) -> RuleValue {
        switch field {
        case .orderByKey: .bool(orderByKey)
        case .orderByValue: .bool(orderByValue)
        case .orderByPriority: .bool(orderByPriority)
        case .orderByChild: orderByChild
        case .startAt: startAt
        case .endAt: endAt
        case .equalTo: equalTo
        case .limitToFirst: limitToFirst
        case .limitToLast: limitToLast
        }
    }
}

struct Evaluator {
    let auth: RuleValue
    let now: Double
    let before: any RuleDataSource
    let after: Overlay?
    let query: QueryValues
    var captures: [String] = []
    /// The rule being evaluated stands at the first `depth` keys of `target` (`data`, `newData`).
    var target = Path.root
    var depth = 0

    /// The rule's location, built only when a rule reads `data` or `newData`.
    var location: Path { depth == target.count ? target : Path(Array(target.keys[..<depth])) }

    init(auth: JSONValue?, now: Int64, before: any RuleDataSource, after: Overlay?, query: QueryValues) {
        self.auth = auth.map(RuleValue.init(json:)) ?? .null
        self.now = Double(now)
        self.before = before
        self.after = after
        self.query = query
    }

    /// Evaluates a rule at `depth` of `target`; errors and non-boolean results are false.
    func check(_ rule: CompiledRule) -> Bool {
        if case .literal(.bool(let b)) = rule.expr { return b }
        guard case .bool(true)? = try? eval(rule.expr) else { return false }
        return true
    }

    func summary(_ s: RuleSnapshot) throws(EvaluationError) -> NodeSummary {
        do {
            switch s.side {
            case .before: return try before.summary(at: s.path)
            case .after:
                guard let after else { throw EvaluationError() }
                return try after.summary(at: s.path)
            }
        } catch {
            throw EvaluationError()
        }
    }

    func eval(_ e: Expr) throws(EvaluationError) -> RuleValue {
        switch e {
        case .literal(let v): return v
        case .auth: return auth
        case .now: return .number(now)
        case .root: return .snapshot(RuleSnapshot(side: .before, path: .root))
        case .data: return .snapshot(RuleSnapshot(side: .before, path: location))
        case .newData: return .snapshot(RuleSnapshot(side: .after, path: location))
        case .capture(let i): return .string(captures[i])
        case .queryField(let f): return query.value(f)
        case .member(let base, let name):
            switch try eval(base) {
            case .null: return .null
            case .map(let members): return members.first { $0.key == name }.map { RuleValue(json: $0.value) } ?? .null
            case .string(let s) where name == "length": return .number(Double(s.utf16.count))
            default: throw EvaluationError()
            }
        case .index(let base, let index):
            let b = try eval(base)
            let i = try eval(index)
            switch (b, i) {
            case (.null, _): return .null
            case (.map(let members), .string(let k)): return members.first { $0.key == k }.map { RuleValue(json: $0.value) } ?? .null
            case (.list(let items), .number(let n)):
                guard n >= 0, n < Double(items.count), n == n.rounded() else { return .null }
                return RuleValue(json: items[Int(n)])
            default: throw EvaluationError()
            }
        case .snapshot(let base, let method, let args):
            guard case .snapshot(let s) = try eval(base) else { throw EvaluationError() }
            return try call(method, on: s, args)
        case .string(let base, let method, let args):
            guard case .string(let s) = try eval(base) else { throw EvaluationError() }
            var strings: [String] = []
            for a in args {
                switch try eval(a) {
                case .string(let t): strings.append(t)
                default: throw EvaluationError()
                }
            }
            switch method {
            // On UTF-16 code units, as JavaScript: Swift's Character comparisons would treat
            // "admin\u{301}" as not containing "admin" and "e\u{301}" as equal to "é", which
            // lets values slip past block-lists and equality checks.
            case .contains: return .bool(RuleStrings.range(of: strings[0], in: s) != nil)
            case .beginsWith: return .bool(s.utf16.starts(with: strings[0].utf16))
            case .endsWith: return .bool(s.utf16.reversed().starts(with: strings[0].utf16.reversed()))
            case .replace: return .string(RuleStrings.replacingAll(strings[0], with: strings[1], in: s))
            case .toLowerCase: return .string(s.lowercased())
            case .toUpperCase: return .string(s.uppercased())
            }
        case .matches(let base, let regex):
            guard case .string(let s) = try eval(base) else { throw EvaluationError() }
            return .bool(regex.matches(s))
        case .not(let x):
            guard case .bool(let b) = try eval(x) else { throw EvaluationError() }
            return .bool(!b)
        case .negate(let x):
            guard case .number(let n) = try eval(x) else { throw EvaluationError() }
            return .number(-n)
        case .and(let a, let b):
            guard case .bool(let l) = try eval(a) else { throw EvaluationError() }
            if !l { return .bool(false) }
            guard case .bool(let r) = try eval(b) else { throw EvaluationError() }
            return .bool(r)
        case .or(let a, let b):
            guard case .bool(let l) = try eval(a) else { throw EvaluationError() }
            if l { return .bool(true) }
            guard case .bool(let r) = try eval(b) else { throw EvaluationError() }
            return .bool(r)
        case .conditional(let c, let a, let b):
            guard case .bool(let cond) = try eval(c) else { throw EvaluationError() }
            return try eval(cond ? a : b)
        case .equal(let a, let b, let negated):
            let equal = try Evaluator.strictEqual(eval(a), eval(b))
            return .bool(equal != negated)
        case .compare(let op, let a, let b):
            let l = try eval(a)
            let r = try eval(b)
            let order: Int
            switch (l, r) {
            case (.number(let x), .number(let y)):
                if x.isNaN || y.isNaN { return .bool(false) }
                order = x < y ? -1 : x > y ? 1 : 0
            case (.string(let x), .string(let y)): order = compareUTF16(x, y)
            default: throw EvaluationError()
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            case .greaterOrEqual: return .bool(order >= 0)
            }
        case .arithmetic(let op, let a, let b):
            let l = try eval(a)
            let r = try eval(b)
            if op == .add {
                switch (l, r) {
                case (.number(let x), .number(let y)): return .number(x + y)
                case (.string(let x), .string(let y)): return .string(x + y)
                case (.string(let x), .number(let y)): return .string(x + Evaluator.numberText(y))
                case (.number(let x), .string(let y)): return .string(Evaluator.numberText(x) + y)
                default: throw EvaluationError()
                }
            }
            guard case .number(let x) = l, case .number(let y) = r else { throw EvaluationError() }
            switch op {
            case .add: return .number(x + y)
            case .subtract: return .number(x - y)
            case .multiply: return .number(x * y)
            case .divide: return .number(y == 0 ? .nan : x / y)
            case .remainder: return .number(y == 0 ? .nan : x.truncatingRemainder(dividingBy: y))
            }
        case .stringList:
            throw EvaluationError()
        }
    }

    func call(_ method: SnapshotMethod, on s: RuleSnapshot, _ args: [Expr]) throws(EvaluationError) -> RuleValue {
        switch method {
        case .val:
            switch try summary(s) {
            case .absent: return .null
            case .leaf(let l, _): return RuleValue(leaf: l)
            case .object: return .opaqueObject
            }
        case .getPriority: return RuleValue(leaf: try summary(s).priority)
        case .exists: return .bool(try summary(s) != .absent)
        case .isNumber:
            if case .leaf(let l, _) = try summary(s) { return .bool(l.isNumber) }
            return .bool(false)
        case .isString:
            if case .leaf(.string, _) = try summary(s) { return .bool(true) }
            return .bool(false)
        case .isBoolean:
            if case .leaf(.bool, _) = try summary(s) { return .bool(true) }
            return .bool(false)
        case .parent:
            guard let parent = s.path.parent else { throw EvaluationError() }
            return .snapshot(RuleSnapshot(side: s.side, path: parent))
        case .child:
            return .snapshot(RuleSnapshot(side: s.side, path: try childPath(s.path, args[0])))
        case .hasChild:
            return .bool(try summary(RuleSnapshot(side: s.side, path: try childPath(s.path, args[0]))) != .absent)
        case .hasChildren:
            guard let list = args.first else {
                if case .object = try summary(s) { return .bool(true) }
                return .bool(false)
            }
            guard case .stringList(let names) = list else { throw EvaluationError() }
            for name in names {
                let child = RuleSnapshot(side: s.side, path: try childPath(s.path, name))
                if try summary(child) == .absent { return .bool(false) }
            }
            return .bool(true)
        }
    }

    /// `child('a/b')`: a relative path; keys are not validated (a key that cannot exist is absent).
    func childPath(_ base: Path, _ arg: Expr) throws(EvaluationError) -> Path {
        guard case .string(let s) = try eval(arg) else { throw EvaluationError() }
        var path = base
        for part in s.split(separator: "/", omittingEmptySubsequences: true) { path.keys.append(Key(String(part))) }
        return path
    }

    static func strictEqual(_ a: RuleValue, _ b: RuleValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        // Code units, not canonical equivalence: `e\u{301}` and `é` are different keys in the store.
        case (.string(let x), .string(let y)): return x.utf16.elementsEqual(y.utf16)
        default: return false
        }
    }

    /// Numbers in string concatenation, as JavaScript's `Number.prototype.toString` prints them:
    /// `1`, `1.5`, `NaN`, `10000000000000000000` (1e19), `0.000001`, `1e-7`, `1e+21`.
    static func numberText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return "0" }
        // Swift prints the shortest digits that round-trip, as JavaScript does; only the layout differs.
        var text = "\(d.magnitude)"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(String(parts[0]) + (parts.count > 1 ? String(parts[1]) : ""))
        // The value is 0.DIGITS × 10^n.
        var n = parts[0].count + exponent
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            n -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let body: String
        if k <= n && n <= 21 {
            body = String(digits) + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            body = String(digits[..<n]) + "." + String(digits[n...])
        } else if -6 < n && n <= 0 {
            body = "0." + String(repeating: "0", count: -n) + String(digits)
        } else {
            let e = n - 1
            body = String(digits[0]) + (k > 1 ? "." + String(digits[1...]) : "") + "e" + (e < 0 ? "-" : "+") + String(e.magnitude)
        }
        return (d < 0 ? "-" : "") + body
    }
}
