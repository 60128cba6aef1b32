public import HearthStore
import PostgresNIO

/// One project's push devices and topic subscriptions in a PostgreSQL database that several Hearth nodes
/// share (`hearth_devices` and `hearth_device_topics`, rows scoped by `project`).
///
/// A registration is one upsert on the token, so two nodes registering the same device at once leave one
/// row (the later commit's); the topics of a device that changed hands are dropped in the same transaction.
public final class PostgresDeviceStore: DeviceStore {
    /// The project whose rows this store reads and writes.
    public let project: String
    let server: PostgresServer

    /// The devices of `project` on `server` (whose schema the server created when it connected).
    public init(server: PostgresServer, project: String) {
        self.server = server
        self.project = project
    }

    /// The columns a registration is read from: the topics joined by spaces (no topic name holds one).
    private static let columns = """
        d.token, d.uid, d.service, d.sandbox, d.updated,
        (SELECT string_agg(topic, ' ') FROM hearth_device_topics t WHERE t.project = d.project AND t.token = d.token)
        """

    private static func device(_ row: PostgresRow) throws -> DeviceRegistration? {
        let (token, uid, service, sandbox, updated, topics) = try row.decode((String, String, String, Bool, Int64, String?).self)
        guard let service = PushService(rawValue: service) else { return nil }
        return DeviceRegistration(
            token: token, uid: uid, service: service, sandbox: sandbox, topics: topics.map { $0.split(separator: " ").map(String.init) } ?? [],
            updated: updated)
    }

    /// Adds or replaces the registration in one transaction; the topics go when the user changes.
    public func register(_ device: DeviceRegistration) async throws {
        _ = try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                // Locks the row (when there is one) so the owner read and the upsert see the same registration.
                let owner = try session.query(
                    "SELECT uid FROM hearth_devices WHERE project = \(project) AND token = \(device.token) FOR UPDATE"
                ).first?.decode(String.self)
                if let owner, owner != device.uid {
                    try session.execute("DELETE FROM hearth_device_topics WHERE project = \(project) AND token = \(device.token)")
                }
                try session.execute(
                    """
                    INSERT INTO hearth_devices(project, token, uid, service, sandbox, updated)
                    VALUES (\(project), \(device.token), \(device.uid), \(device.service.rawValue), \(device.sandbox), \(device.updated))
                    ON CONFLICT (project, token) DO UPDATE SET uid = excluded.uid, service = excluded.service,
                    sandbox = excluded.sandbox, updated = excluded.updated
                    """)
            }
        }
    }

    /// The registration of `token`.
    public func device(token: String) async throws -> DeviceRegistration? {
        try await server.run { [project] session in
            try session.query(
                "SELECT \(unescaped: Self.columns) FROM hearth_devices d WHERE d.project = \(project) AND d.token = \(token)"
            ).first.flatMap(Self.device)
        }
    }

    /// The user's devices, newest first (then by token).
    public func devices(uid: String) async throws -> [DeviceRegistration] {
        try await server.run { [project] session in
            try session.query(
                """
                SELECT \(unescaped: Self.columns) FROM hearth_devices d WHERE d.project = \(project) AND d.uid = \(uid)
                ORDER BY d.updated DESC, d.token
                """
            ).compactMap(Self.device)
        }
    }

    /// Subscribers of `topic` in token order (the "C" collation: UTF-8 bytes) after `token`.
    public func devices(topic: String, after token: String?, limit: Int) async throws -> [DeviceRegistration] {
        try await server.run { [project] session in
            try session.query(
                """
                SELECT \(unescaped: Self.columns) FROM hearth_device_topics s
                JOIN hearth_devices d ON d.project = s.project AND d.token = s.token
                WHERE s.project = \(project) AND s.topic = \(topic) AND s.token > \(token ?? "") ORDER BY s.token LIMIT \(max(0, limit))
                """
            ).compactMap(Self.device)
        }
    }

    /// Adds or removes the subscription; false when no device has this token.
    public func setTopic(_ topic: String, subscribed: Bool, token: String) async throws -> Bool {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                guard
                    try !session.query("SELECT 1 FROM hearth_devices WHERE project = \(project) AND token = \(token) FOR SHARE").isEmpty
                else { return false }
                if subscribed {
                    try session.execute(
                        "INSERT INTO hearth_device_topics(project, topic, token) VALUES (\(project), \(topic), \(token)) ON CONFLICT DO NOTHING")
                } else {
                    try session.execute(
                        "DELETE FROM hearth_device_topics WHERE project = \(project) AND topic = \(topic) AND token = \(token)")
                }
                return true
            }
        }
    }

    /// Removes the device and its subscriptions in one transaction.
    public func remove(token: String) async throws -> Bool {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                try session.execute("DELETE FROM hearth_device_topics WHERE project = \(project) AND token = \(token)")
                return try session.execute("DELETE FROM hearth_devices WHERE project = \(project) AND token = \(token)") > 0
            }
        }
    }

    /// Removes the user's devices and their subscriptions in one transaction.
    public func removeDevices(uid: String) async throws -> Int {
        try await server.run { [project] session in
            try session.transaction(.readCommitted) {
                try session.execute(
                    """
                    DELETE FROM hearth_device_topics WHERE project = \(project)
                    AND token IN (SELECT token FROM hearth_devices WHERE project = \(project) AND uid = \(uid))
                    """)
                return Int(try session.execute("DELETE FROM hearth_devices WHERE project = \(project) AND uid = \(uid)"))
            }
        }
    }

    /// Nothing to release: the connections belong to the server, which its owner shuts down.
    public func close() async throws {}
}
