extension ParsedWrite {
    /// Substitutes every placeholder. `current(relativePath)` returns the stored value at that place
    /// before this write (increments add to it); `now` is milliseconds since 1970.
    ///
    /// Throws what `current` throws, and a `ValidationError` when an increment's result does not fit in
    /// a double (`1e308 + 1e308`): JSON has no infinity, so storing it would make the value unreadable.
    public func resolved(now: Int64, current: (Path) throws -> Node) throws -> Node {
        guard !placeholders.isEmpty else { return node }
        // Values first, so a priority placeholder finds the node it belongs to. All at once: one by one,
        // n placeholders under one parent would copy its children n times.
        let ordered = placeholders.filter { !$0.isPriority } + placeholders.filter(\.isPriority)
        return try node.updating(ordered.map(\.path)) { i, existing in
            let p = ordered[i]
            let leaf: Leaf
            switch p.value {
            case .timestamp:
                leaf = .int(now)
            case .increment(let delta):
                // A priority increment adds to the stored priority, a value increment to the stored value.
                let stored = try current(p.path)
                leaf = ServerValue.add(p.isPriority ? stored.priority : stored.leafValue, delta)
                if case .double(let sum) = leaf, !sum.isFinite {
                    throw ValidationError("The increment's result is out of range: a number must be finite")
                }
            }
            return p.isPriority ? existing.withPriority(leaf) : .leaf(leaf, priority: p.priority ?? existing.priority)
        }
    }
}

extension ServerValue {
    /// `base + delta` when base is a number (Int64 unless it overflows), else `delta`.
    public static func add(_ base: Leaf?, _ delta: Leaf) -> Leaf {
        switch (base, delta) {
        case let (.int(a)?, .int(b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .double(Double(a) + Double(b)) : .int(sum)
        case let (b?, d) where b.isNumber:
            return .number(b.doubleValue! + d.doubleValue!)
        default:
            return delta
        }
    }
}
