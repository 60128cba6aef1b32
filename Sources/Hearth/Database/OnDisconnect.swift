public import HearthCore

/// Writes the server performs when this client's connection ends (closed, lost or timed out) —
/// presence, "last seen" timestamps, cleanup.
///
/// ```swift
/// try await db.reference("status/alice").onDisconnect().setValue("offline")
/// try await db.reference("status/alice").setValue("online")
/// ```
/// Each call returns once the server has queued the operation (its rules are checked then).
public struct OnDisconnect: Sendable {
    let ref: DatabaseReference

    private var connection: any RealtimeConnection { ref.database.connection }

    private func run(_ operation: () async throws -> Void) async throws(DatabaseError) {
        do {
            try await operation()
        } catch {
            throw DatabaseError.from(error, path: ref.location)
        }
    }

    private func checked(_ json: JSONValue, at path: Path) throws(DatabaseError) -> JSONValue {
        do {
            _ = try Node.parseWrite(json, depth: path.count)
        } catch {
            throw .invalidData(path.description, error.message)
        }
        return json
    }

    /// Sets the value when the client disconnects.
    public func setValue(_ value: some Encodable) async throws(DatabaseError) {
        let path = try ref.validated()
        let json = try checked(DatabaseCoding.encode(value, path: path), at: path)
        try await run { try await connection.onDisconnectPut(path: path, data: json) }
    }

    /// Sets raw JSON when the client disconnects.
    public func setValue(json: JSONValue) async throws(DatabaseError) {
        let path = try ref.validated()
        let data = try checked(json, at: path)
        try await run { try await connection.onDisconnectPut(path: path, data: data) }
    }

    /// Updates several relative paths when the client disconnects.
    public func updateChildValues(_ values: [String: any Encodable]) async throws(DatabaseError) {
        let path = try ref.validated()
        var members: [JSONMember] = []
        for key in values.keys.sorted() {
            let target = path.appending(Path(key))
            members.append(JSONMember(key, try checked(DatabaseCoding.encode(values[key]!, path: target), at: target)))
        }
        let data = members
        try await run { try await connection.onDisconnectMerge(path: path, data: data) }
    }

    /// Deletes the data when the client disconnects.
    public func removeValue() async throws(DatabaseError) {
        let path = try ref.validated()
        try await run { try await connection.onDisconnectPut(path: path, data: .null) }
    }

    /// Cancels every onDisconnect operation at or below this location.
    public func cancel() async throws(DatabaseError) {
        let path = try ref.validated()
        try await run { try await connection.onDisconnectCancel(path: path) }
    }
}
