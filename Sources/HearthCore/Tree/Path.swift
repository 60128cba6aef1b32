/// A location in the database tree: a list of keys from the root.
public struct Path: Sendable, Hashable, CustomStringConvertible {
    /// The keys from the root down; empty for the root.
    public var keys: [Key]

    /// A path from keys, not validated (``Path/validated(_:)`` checks user input).
    public init(_ keys: [Key] = []) {
        self.keys = keys
    }

    /// Builds a path from a slash-separated string without validation (empty segments dropped).
    public init(_ string: String) {
        self.keys = string.split(separator: "/", omittingEmptySubsequences: true).map { Key(String($0)) }
    }

    /// The path with no keys.
    public static let root = Path()

    /// True for the root.
    public var isRoot: Bool { keys.isEmpty }
    /// Number of keys (the depth below the root).
    public var count: Int { keys.count }
    /// The last key, nil for the root.
    public var last: Key? { keys.last }

    /// The path without its last key; nil for the root.
    public var parent: Path? {
        guard !keys.isEmpty else { return nil }
        return Path(Array(keys.dropLast()))
    }

    /// This path with `key` appended.
    public func child(_ key: Key) -> Path { Path(keys + [key]) }

    /// This path followed by the keys of `other`.
    public func appending(_ other: Path) -> Path { Path(keys + other.keys) }

    /// True when `self` equals `other` or lies above it.
    public func isAncestor(ofOrEqualTo other: Path) -> Bool {
        keys.count <= other.keys.count && zip(keys, other.keys).allSatisfy { $0 == $1 }
    }

    /// `other` expressed relative to `self`; nil when `self` is not an ancestor-or-equal.
    public func relative(_ other: Path) -> Path? {
        guard isAncestor(ofOrEqualTo: other) else { return nil }
        return Path(Array(other.keys.dropFirst(keys.count)))
    }

    /// `/a/b` form; the root is `/`.
    public var description: String {
        keys.isEmpty ? "/" : keys.map { "/" + $0.string }.joined()
    }
}
