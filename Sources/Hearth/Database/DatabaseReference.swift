public import HearthCore

/// A location in the database: read it, observe it, write it.
///
/// ```swift
/// let alice = db.reference("users").child("alice")
/// try await alice.setValue(User(name: "Alice", joined: ServerValue.timestamp))
/// try await alice.updateChildValues(["name": "Alice B."])
/// let user = try await alice.getValue(as: User.self)
/// ```
/// A reference is also a query over all of its children (see ``DatabaseQueryable``).
public struct DatabaseReference: Sendable, Hashable, CustomStringConvertible, DatabaseQueryable {
    /// The database this reference belongs to.
    public let database: Database
    let location: Path

    init(database: Database, location: Path) {
        self.database = database
        self.location = location
    }

    /// Equal when both point to the same location of the same ``Database`` instance.
    public static func == (a: DatabaseReference, b: DatabaseReference) -> Bool {
        a.database === b.database && a.location == b.location
    }

    /// Hashes the database's identity and the path, matching `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(database))
        hasher.combine(location)
    }

    /// The last key of the path; nil for the root.
    public var key: String? { location.last?.string }

    /// The path, `/a/b` (the root is `/`).
    public var path: String { location.description }

    /// The path, `/a/b`, as ``path``.
    public var description: String { path }

    /// The parent location; nil for the root.
    public var parent: DatabaseReference? {
        location.parent.map { DatabaseReference(database: database, location: $0) }
    }

    /// The root of the database.
    public var root: DatabaseReference { DatabaseReference(database: database, location: .root) }

    /// A child location; `path` may have several segments (`"a/b/c"`).
    public func child(_ path: String) -> DatabaseReference {
        DatabaseReference(database: database, location: location.appending(Path(path)))
    }

    /// A new child with a push id: 20 characters that sort in creation order (by the estimated
    /// server time, so ids from different devices interleave correctly).
    public func childByAutoId() -> DatabaseReference {
        DatabaseReference(database: database, location: location.child(Key(database.makePushID())))
    }

    /// All children of this location, with no ordering, range or limit.
    public var databaseQuery: DatabaseQuery { DatabaseQuery(ref: self) }

    /// The path after checking every key (non-empty, ≤ 768 bytes, no `. $ # [ ] /` or controls).
    func validated() throws(DatabaseError) -> Path {
        var keys: [Key] = []
        for k in location.keys {
            do {
                keys.append(try Key.validated(k.string))
            } catch {
                throw .invalidPath(location.description, error.message)
            }
        }
        guard keys.count <= Limits.maxDepth else { throw .invalidPath(location.description, "Path is too deep (over 32 levels)") }
        return Path(keys)
    }

    // MARK: - Writes

    /// Replaces the data here with an encoded value (`nil` optionals and empty containers delete).
    ///
    /// Returns when the server has committed the write; local observers see it at once. Throws
    /// ``DatabaseError`` (`permissionDenied` when the rules refuse it — local observers then see
    /// the previous data again).
    public func setValue(_ value: some Encodable) async throws(DatabaseError) {
        let path = try validated()
        try await database.engine.write(path, .set(DatabaseCoding.encode(value, path: path)))
    }

    /// Replaces the data here with JSON (which may hold `.priority`, `.value` and `.sv` members).
    public func setValue(json: JSONValue) async throws(DatabaseError) {
        try await database.engine.write(try validated(), .set(json))
    }

    /// Replaces the data here and gives it a priority (a number or a string; `nil` clears it).
    public func setValue(_ value: some Encodable, priority: PrimitiveValue) async throws(DatabaseError) {
        let path = try validated()
        try await database.engine.write(path, .set(Self.withPriority(DatabaseCoding.encode(value, path: path), priority)))
    }

    static func withPriority(_ json: JSONValue, _ priority: PrimitiveValue) -> JSONValue {
        if case .object(var members) = json, !members.isEmpty {
            members.removeAll { $0.key == ".priority" }
            members.append(JSONMember(".priority", priority.json))
            return .object(members)
        }
        return .object([JSONMember(".value", json), JSONMember(".priority", priority.json)])
    }

    /// Sets several relative paths at once, atomically (`["name": "A", "stats/visits": 3]`).
    /// Paths must not overlap; a `nil` value deletes.
    public func updateChildValues(_ values: [String: any Encodable]) async throws(DatabaseError) {
        let path = try validated()
        var members: [JSONMember] = []
        for key in values.keys.sorted() {
            members.append(JSONMember(key, try DatabaseCoding.encode(values[key]!, path: path.appending(Path(key)))))
        }
        try await database.engine.write(path, .merge(members))
    }

    /// Sets several relative paths at once, atomically, from JSON.
    public func updateChildValues(json values: [String: JSONValue]) async throws(DatabaseError) {
        let members = values.keys.sorted().map { JSONMember($0, values[$0]!) }
        try await database.engine.write(try validated(), .merge(members))
    }

    /// Deletes the data here.
    public func removeValue() async throws(DatabaseError) {
        try await database.engine.write(try validated(), .set(.null))
    }

    /// Atomically reads and replaces the data here.
    ///
    /// `update` runs with the current data (as the client knows it, after the server sent it) and
    /// may run again (up to 25 times) when another client changed the data first. It must not
    /// have side effects.
    /// ```swift
    /// let outcome = try await counter.runTransaction { data in
    ///     try? data.setValue(((try? data.value(as: Int.self)) ?? 0) + 1)
    ///     return .success
    /// }
    /// ```
    public func runTransaction(
        _ update: @Sendable (inout MutableData) -> TransactionResult
    ) async throws(DatabaseError) -> TransactionOutcome {
        let path = try validated()
        let result = try await database.engine.transaction(at: path, update)
        let snapshot = DataSnapshot(ref: self, node: result.node, order: .priority, isFromCache: result.fromCache)
        return TransactionOutcome(committed: result.committed, snapshot: snapshot)
    }

    /// Writes the server performs when this client disconnects.
    public func onDisconnect() -> OnDisconnect { OnDisconnect(ref: self) }
}
