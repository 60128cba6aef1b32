/// A rules `path` value: `/b/bucket/o/users/alice`, a recursive wildcard's capture, or the
/// result of `path('a/b')`. Segments written `$(name)` with no variable in scope stay
/// placeholders until `bind({...})` fills them.
struct StoragePathValue: Hashable, Sendable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case placeholder(String)
    }

    var segments: [Segment]

    init(segments: [Segment]) { self.segments = segments }

    init(_ literals: some Sequence<String>) { segments = literals.map { .literal($0) } }

    /// Parses `a/b/c` or `/a/b/c`; empty segments are dropped.
    init(parsing text: String) {
        self.init(text.split(separator: "/", omittingEmptySubsequences: true).map(String.init))
    }

    /// `/a/b/c`, placeholders as `$(name)`; the root is `/`.
    var description: String {
        guard !segments.isEmpty else { return "/" }
        return segments.map { segment in
            switch segment {
            case .literal(let s): "/" + s
            case .placeholder(let n): "/$(" + n + ")"
            }
        }.joined()
    }
}
