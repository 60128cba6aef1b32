/// A database location with named wildcards, as triggers name it: `/reservations/{id}`,
/// `/chats/{chat}/messages/{message}`.
///
/// Each segment is a literal key or `{name}`, which matches any one key and captures it. A pattern
/// matches paths of exactly its depth.
///
/// ```swift
/// let pattern = try PathPattern("/users/{uid}/coins")
/// pattern.match(Path("/users/alice/coins"))  // ["uid": "alice"]
/// ```
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Sendable, Hashable {
        /// Matches exactly this key.
        case literal(Key)
        /// `{name}`: matches any one key and captures it under `name`.
        case wildcard(String)
    }

    /// The segments from the root down.
    public let segments: [Segment]

    /// Parses `/a/{b}/c`. Wildcard names are letters, digits and `_`, unique within the pattern;
    /// literal segments must be valid keys.
    public init(_ text: String) throws(ValidationError) {
        var segments: [Segment] = []
        var names: Set<String> = []
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            if part.hasPrefix("{") {
                guard part.hasSuffix("}"), part.count > 2 else {
                    throw ValidationError("Invalid wildcard \"\(part)\" in \"\(text)\": write {name}")
                }
                let name = String(part.dropFirst().dropLast())
                guard name.utf8.allSatisfy({ $0 == 0x5F || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) })
                else { throw ValidationError("Invalid wildcard name \"\(name)\" in \"\(text)\": use letters, digits and _") }
                guard names.insert(name).inserted else {
                    throw ValidationError("Wildcard {\(name)} appears twice in \"\(text)\"")
                }
                segments.append(.wildcard(name))
            } else {
                guard !part.contains("{"), !part.contains("}") else {
                    throw ValidationError("Invalid segment \"\(part)\" in \"\(text)\": a wildcard is a whole segment")
                }
                do {
                    segments.append(.literal(try Key.validated(String(part))))
                } catch {
                    throw ValidationError("Invalid key \"\(part)\" in \"\(text)\": \(error.message)")
                }
            }
        }
        self.segments = segments
    }

    /// Number of segments: the depth of every path the pattern matches.
    public var depth: Int { segments.count }

    /// `/a/{b}` form; the root is `/`.
    public var description: String {
        segments.isEmpty ? "/" : segments.map {
            switch $0 {
            case .literal(let k): "/" + k.string
            case .wildcard(let n): "/{" + n + "}"
            }
        }.joined()
    }

    /// The captured wildcards when `path` matches exactly, else nil.
    public func match(_ path: Path) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        return matchPrefix(path.keys[...])
    }

    /// Whether the first `count` segments accept the first keys of `path` (which has at least that many).
    public func matchesPrefix(of path: Path, count: Int) -> Bool {
        guard count <= segments.count, count <= path.count else { return false }
        for i in 0..<count {
            if case .literal(let k) = segments[i], k != path.keys[i] { return false }
        }
        return true
    }

    private func matchPrefix(_ keys: ArraySlice<Key>) -> [String: String]? {
        var params: [String: String] = [:]
        for (segment, key) in zip(segments, keys) {
            switch segment {
            case .literal(let k): if k != key { return nil }
            case .wildcard(let name): params[name] = key.string
            }
        }
        return params
    }

    /// The locations matching this pattern that a write at `path` can change, given the data at
    /// `path` (`node`):
    /// - `path` at or below the pattern's depth: the one ancestor-or-self of `path` at that depth,
    ///   when it matches;
    /// - `path` above it: every matching location inside `node`.
    public func locations(touchedBy path: Path, in node: Node) -> [Path] {
        if path.count >= segments.count {
            let prefix = Path(Array(path.keys.prefix(segments.count)))
            return matchesPrefix(of: prefix, count: segments.count) ? [prefix] : []
        }
        guard matchesPrefix(of: path, count: path.count) else { return [] }
        var found: [Path] = []
        collect(node, at: path, into: &found)
        return found
    }

    private func collect(_ node: Node, at path: Path, into found: inout [Path]) {
        if path.count == segments.count {
            if !node.isEmpty { found.append(path) }
            return
        }
        switch segments[path.count] {
        case .literal(let k):
            let child = node.child(k)
            if !child.isEmpty { collect(child, at: path.child(k), into: &found) }
        case .wildcard:
            for (key, child) in zip(node.children.keys, node.children.nodes) {
                collect(child, at: path.child(key), into: &found)
            }
        }
    }
}
