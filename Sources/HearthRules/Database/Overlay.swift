import HearthCore

/// The data after a write: the writes laid over the data before them (`newData` in rules).
///
/// A multi-path update can bring thousands of writes, and every rule that reads `newData` asks about
/// one location. Past a handful of writes a question is answered from the writes sorted by path
/// (binary searches, counts kept beforehand, each location's answer kept for the rest of the check)
/// rather than by a scan of every write, which made such an update O(n²). A write of one path (the
/// usual PUT) scans, as before, and allocates nothing.
struct Overlay {
    let base: any RuleDataSource
    private let writes: [(path: Path, node: Node)]
    private let index: Index?

    /// Up to this many writes, a scan per question is cheaper than building the index.
    static let scanLimit = 8

    /// The writes sorted by `Path.compare` (a subtree's paths are contiguous, right after its root).
    private final class Index {
        let paths: [Path]
        let nodes: [Node]
        /// The sorted index of each written path (the later of two writes of one path wins).
        let indexOf: [Path: Int]
        /// `deletesBefore[i]`: how many of the first i sorted writes delete (write an empty node); same for adds.
        let deletesBefore: [Int]
        let addsBefore: [Int]
        /// Answers already worked out, for this one check (the overlay does not change while it lives).
        var summaries: [Path: NodeSummary] = [:]

        init(_ writes: [(path: Path, node: Node)]) {
            let order = writes.indices.sorted { a, b in
                let c = Path.compare(writes[a].path, writes[b].path)
                return c != 0 ? c < 0 : a < b
            }
            paths = order.map { writes[$0].path }
            nodes = order.map { writes[$0].node }
            var index: [Path: Int] = [:]
            var deletes = [0]
            var adds = [0]
            for (i, p) in paths.enumerated() {
                index[p] = i
                deletes.append(deletes[i] + (nodes[i].isEmpty ? 1 : 0))
                adds.append(adds[i] + (nodes[i].isEmpty ? 0 : 1))
            }
            indexOf = index
            deletesBefore = deletes
            addsBefore = adds
        }

        /// The deepest write at or above `location`: its node there.
        func covering(_ location: Path) -> Node? {
            for depth in stride(from: location.count, through: 0, by: -1) {
                let prefix = depth == location.count ? location : Path(Array(location.keys[..<depth]))
                if let i = indexOf[prefix] { return nodes[i].child(at: Path(Array(location.keys[depth...]))) }
            }
            return nil
        }

        /// How many writes strictly below `location` delete and add: a contiguous run after where it sorts.
        func below(_ location: Path) -> (deletes: Int, adds: Int) {
            let start = firstIndex { Path.compare($0, location) > 0 }
            let end = firstIndex { !location.isAncestor(ofOrEqualTo: $0) && Path.compare($0, location) > 0 }
            return (deletesBefore[end] - deletesBefore[start], addsBefore[end] - addsBefore[start])
        }

        /// The first sorted index where `past` holds (it holds for every later index too), or the count.
        private func firstIndex(where past: (Path) -> Bool) -> Int {
            var lo = 0
            var hi = paths.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if past(paths[mid]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
    }

    /// - Parameter writes: absolute paths with their new values (empty = delete). Where one write lies
    ///   below another (a priority entry above a value), the deeper one decides what is below it.
    init(base: any RuleDataSource, writes: [(path: Path, node: Node)]) {
        self.base = base
        self.writes = writes
        index = writes.count > Self.scanLimit ? Index(writes) : nil
    }

    func summary(at location: Path) throws -> NodeSummary {
        guard let index else { return try work(at: location) }
        if let known = index.summaries[location] { return known }
        let answer = try work(at: location)
        index.summaries[location] = answer
        return answer
    }

    private func work(at location: Path) throws -> NodeSummary {
        let covering: Node?
        let deletesBelow: Int
        let addsBelow: Bool
        if let index {
            covering = index.covering(location)
            let below = covering == nil ? index.below(location) : (deletes: 0, adds: 0)
            (deletesBelow, addsBelow) = (below.deletes, below.adds > 0)
        } else {
            var deepest: (path: Path, node: Node)?
            var deletes = 0
            var adds = false
            for w in writes {
                if w.path.isAncestor(ofOrEqualTo: location) {
                    if w.path.count >= deepest?.path.count ?? 0 { deepest = w }
                } else if location.isAncestor(ofOrEqualTo: w.path) {
                    if w.node.isEmpty { deletes += 1 } else { adds = true }
                }
            }
            covering = deepest.map { $0.node.child(at: Path(Array(location.keys[$0.path.count...]))) }
            (deletesBelow, addsBelow) = (deletes, adds)
        }
        if let covering { return NodeSummary(covering) }
        let before = try base.summary(at: location)
        if addsBelow { return .object(priority: before.priority) }
        guard deletesBelow > 0, case .object(let priority) = before else { return before }
        // Only deletes below: the node survives if some child does.
        let keys = try base.childKeys(at: location, limit: deletesBelow + 1)
        for key in keys where try summary(at: location.child(key)) != .absent {
            return .object(priority: priority)
        }
        return .absent
    }
}
