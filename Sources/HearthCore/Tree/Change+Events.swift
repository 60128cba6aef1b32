/// What a listener at some location must be told about a change.
public enum ListenerEvent: Sendable, Hashable {
    /// Replace the value at this listener-relative path.
    case put(Path, Node)
    /// Replace each relative path under this listener-relative path.
    case patch(Path, [PatchEntry])
}

extension Change {
    /// The event for a listener at `location`, or nil when the change does not touch it.
    public func event(for location: Path) -> ListenerEvent? {
        switch kind {
        case .put(let node):
            if let rel = location.relative(path) { return .put(rel, node) }
            if let rel = path.relative(location) { return .put(.root, node.child(at: rel)) }
            return nil
        case .patch(let entries):
            if let rel = location.relative(path) { return .patch(rel, entries) }
            guard let below = path.relative(location) else { return nil }
            var inside: [PatchEntry] = []
            for e in entries {
                if let r = e.path.relative(below) { return .put(.root, e.node.child(at: r)) }
                if let r = below.relative(e.path) { inside.append(PatchEntry(path: r, node: e.node)) }
            }
            return inside.isEmpty ? nil : .patch(.root, inside)
        }
    }

    /// True when the change can alter anything at or below `location`.
    public func touches(_ location: Path) -> Bool {
        location.isAncestor(ofOrEqualTo: path) || path.isAncestor(ofOrEqualTo: location) && event(for: location) != nil
    }
}
