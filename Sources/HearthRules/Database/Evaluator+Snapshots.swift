import HearthCore

extension Evaluator {
    /// A snapshot method: `val()`, the type tests, `exists()`, `getPriority()` read the data at the
    /// snapshot (before or after the write); `child()`, `parent()` move it; `hasChild()` and
    /// `hasChildren()` read the data at its children.
    func snapshotMethod(_ method: SnapshotMethod, on s: RuleSnapshot, _ args: [Expr]) throws(EvaluationError) -> RuleValue {
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

    /// What the data holds at a snapshot: before the operation from the data source, after it from
    /// the overlay (only a write has one). A read that fails is an error, so the rule is false.
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

    /// `child('a/b')`: a relative path; keys are not validated (a key that cannot exist is absent).
    func childPath(_ base: Path, _ arg: Expr) throws(EvaluationError) -> Path {
        var path = base
        for part in try string(arg).split(separator: "/", omittingEmptySubsequences: true) { path.keys.append(Key(String(part))) }
        return path
    }
}
