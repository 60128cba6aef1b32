public import HearthCore

/// The data a transaction's update function reads and replaces.
///
/// ```swift
/// let result = try await ref.runTransaction { data in
///     let count = (try? data.value(as: Int.self)) ?? 0
///     try? data.setValue(count + 1)
///     return .success
/// }
/// ```
public struct MutableData: Sendable {
    var node: Node
    let location: Path

    init(node: Node, location: Path) {
        self.node = node
        self.location = location
    }

    /// The location's last key (nil at the root).
    public var key: String? { location.last?.string }

    /// The current value as JSON (`.null` when absent).
    public var value: JSONValue {
        get { DatabaseCoding.plainJSON(node) }
        set { node = (try? Node(json: newValue)) ?? .empty }
    }

    /// Whether any data is present.
    public var exists: Bool { !node.isEmpty }

    /// Whether there is at least one child.
    public var hasChildren: Bool { node.childCount > 0 }

    /// The number of direct children.
    public var childrenCount: Int { node.childCount }

    /// The priority, if any (a number or a string).
    public var priority: PrimitiveValue {
        get { PrimitiveValue(node.priority) }
        set { node = node.withPriority(newValue.leaf) }
    }

    /// Decodes the current value.
    public func value<T: Decodable>(as type: T.Type = T.self) throws(DatabaseError) -> T {
        try DatabaseCoding.decode(type, from: node, path: location)
    }

    /// Replaces the value (`nil` or `.null` deletes it). Server values are not allowed here.
    public mutating func setValue(_ value: some Encodable) throws(DatabaseError) {
        let json = try DatabaseCoding.encode(value, path: location)
        do {
            node = try Node(json: json)
        } catch {
            throw .invalidData(location.description, error.message)
        }
    }

    /// Replaces the value with raw JSON (may carry `.priority`).
    public mutating func setValue(json: JSONValue) throws(DatabaseError) {
        do {
            node = try Node(json: json)
        } catch {
            throw .invalidData(location.description, error.message)
        }
    }

    /// The data of a child (a slash-separated relative path), for reading.
    public func childData(_ path: String) -> MutableData {
        let rel = Path(path)
        return MutableData(node: node.child(at: rel), location: location.appending(rel))
    }
}

/// What a transaction's update function decided.
public enum TransactionResult: Sendable, Hashable {
    /// Commit the data as it was left in the `MutableData`.
    case success
    /// Leave the data as it is (the transaction returns `committed == false`).
    case abort
}

/// The outcome of ``DatabaseReference/runTransaction(_:)``.
public struct TransactionOutcome: Sendable {
    /// False when the update function aborted.
    public var committed: Bool
    /// The data at the location after the transaction (the current data when aborted).
    public var snapshot: DataSnapshot
}
