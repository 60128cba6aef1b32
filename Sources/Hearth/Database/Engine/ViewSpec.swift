import HearthCore

/// What one observer looks at: a location and its query (nil = all children, priority order).
struct ViewSpec: Sendable, Hashable {
    var path: Path
    var query: Query?

    /// The order children are listed in (Firebase's default index is the priority).
    var order: Query.Order { query?.order ?? .priority }

    /// True when the query has a range or a limit (it needs its own, tagged, server listen).
    var isFiltered: Bool { query.map { !$0.isUnfiltered } ?? false }

    /// The server listen that feeds this view: order-only queries share the plain listen on the path.
    var listen: ListenSpec { ListenSpec(path: path, query: isFiltered ? query : nil) }
}

/// One server listen: a path, and a query when it is filtered (tagged).
struct ListenSpec: Sendable, Hashable {
    var path: Path
    var query: Query?

    var isTagged: Bool { query != nil }
}

/// Paths at which the cached server data is complete (no path is stored below another).
struct PathSet: Sendable, Hashable {
    private(set) var paths: Set<Path> = []

    init(_ paths: some Sequence<Path> = []) {
        for p in paths { insert(p) }
    }

    func covers(_ path: Path) -> Bool {
        var p = path
        while true {
            if paths.contains(p) { return true }
            guard let parent = p.parent else { return false }
            p = parent
        }
    }

    mutating func insert(_ path: Path) {
        guard !covers(path) else { return }
        paths = paths.filter { !path.isAncestor(ofOrEqualTo: $0) }
        paths.insert(path)
    }

    /// Keeps only the paths at or below one of `roots` (used to bound the persisted cache).
    func restricted(to roots: [Path]) -> PathSet {
        var out = PathSet()
        for p in paths {
            for r in roots {
                if r.isAncestor(ofOrEqualTo: p) { out.insert(p) } else if p.isAncestor(ofOrEqualTo: r) { out.insert(r) }
            }
        }
        return out
    }
}
