public import HearthCore

extension RuleSet {
    /// Whether `auth` may read `path` (with `query`, nil for a plain read). Rules are not filters:
    /// only `.read` rules from the root down to `path` count.
    public func canRead(
        _ path: Path, auth: JSONValue?, query: Query? = nil, now: Int64, data: any RuleDataSource
    ) -> RuleDecision {
        var evaluator = Evaluator(auth: auth, now: now, before: data, after: nil, query: QueryValues(query))
        let found = evaluator.firstGrant({ $0.read }, from: root, to: path)
        if let rule = found.granted { return RuleDecision(allowed: true, basis: .granted(rule)) }
        return RuleDecision(allowed: false, basis: .notGranted(operation: "read", path: path, lastFalse: found.lastFalse))
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
            let found = evaluator.firstGrant({ $0.write }, from: root, to: w.path)
            guard let rule = found.granted else {
                return RuleDecision(allowed: false, basis: .notGranted(operation: "write", path: w.path, lastFalse: found.lastFalse))
            }
            granted = rule
        }
        // 2. Every .validate on the way to each path and under it, where the new data exists.
        if let failure = validate(writes, overlay: overlay, evaluator: &evaluator) { return failure }
        guard let granted else {
            return RuleDecision(allowed: false, basis: .notGranted(operation: "write", path: writes[0].path, lastFalse: nil))
        }
        return RuleDecision(allowed: true, basis: .granted(granted))
    }

    /// Whether any `.read` rule from the root to `path` reads `root`, `data` (so a data change can
    /// change the answer).
    public func readDependsOnData(_ path: Path) -> Bool {
        var walk = RuleWalk(root, along: path)
        repeat {
            if walk.node.read?.readsData == true { return true }
        } while walk.step()
        return false
    }

    /// Runs every `.validate` on the way to each written path (each location once), where the new
    /// data exists, then those under each path; the first that fails decides.
    private func validate(
        _ writes: [(path: Path, node: Node)], overlay: Overlay, evaluator: inout Evaluator
    ) -> RuleDecision? {
        var checked = Set<Path>()
        for w in writes {
            evaluator.captures.removeAll(keepingCapacity: true)
            evaluator.target = w.path
            var walk = RuleWalk(root, along: w.path)
            repeat {
                if let rule = walk.node.validate {
                    let location = walk.location
                    if checked.insert(location).inserted {
                        let exists = (try? overlay.summary(at: location)).map { $0 != .absent } ?? true
                        evaluator.depth = walk.depth
                        if exists, !evaluator.check(rule) {
                            return RuleDecision(allowed: false, basis: .invalid(rule, at: location))
                        }
                    }
                }
            } while walk.step(capturing: &evaluator.captures)
            if walk.isAtEnd, let failure = validateBelow(walk.node, location: w.path, written: w.node, evaluator: &evaluator) {
                return failure
            }
        }
        return nil
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
