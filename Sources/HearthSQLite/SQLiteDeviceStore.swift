import Foundation
import GRDB
public import HearthStore

/// Users' push devices and topic subscriptions in their own SQLite file (`<data>/<project>.devices.sqlite`),
/// never inside the JSON tree.
///
/// `device_topics` is keyed by (topic, token), so sending to a topic reads its subscribers in token order,
/// a page at a time, however many there are.
public final class SQLiteDeviceStore: DeviceStore {
    private let queue: DatabaseQueue

    /// - Parameters:
    ///   - path: the devices file, created with its tables when absent.
    ///   - durable: sync every commit (survives power loss); otherwise commits survive a crash of the
    ///     process but not of the machine.
    public init(path: String, durable: Bool = true) throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS devices(
                    token TEXT PRIMARY KEY NOT NULL, uid TEXT NOT NULL, service TEXT NOT NULL, sandbox INTEGER NOT NULL,
                    updated INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS devices_by_uid ON devices(uid, updated);
                CREATE TABLE IF NOT EXISTS device_topics(topic TEXT NOT NULL, token TEXT NOT NULL, PRIMARY KEY(topic, token)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS device_topics_by_token ON device_topics(token);
                """)
        }
    }

    /// The columns a registration is read from: the topics joined by spaces (no topic name holds one).
    private static let columns = """
        d.token, d.uid, d.service, d.sandbox, d.updated, (SELECT group_concat(topic, ' ') FROM device_topics t WHERE t.token = d.token) AS topics
        """

    private static func device(_ row: Row) -> DeviceRegistration? {
        guard let service = PushService(rawValue: row["service"]) else { return nil }
        let topics: String? = row["topics"]
        return DeviceRegistration(
            token: row["token"], uid: row["uid"], service: service, sandbox: row["sandbox"],
            topics: topics.map { $0.split(separator: " ").map(String.init) } ?? [], updated: row["updated"])
    }

    /// Adds or replaces the registration in one transaction; the topics go when the user changes.
    public func register(_ device: DeviceRegistration) async throws {
        try await SQLiteFull.mapping { try await queue.write { db in
            let owner = try String.fetchOne(db, sql: "SELECT uid FROM devices WHERE token = ?", arguments: [device.token])
            if let owner, owner != device.uid {
                try db.execute(sql: "DELETE FROM device_topics WHERE token = ?", arguments: [device.token])
            }
            try db.execute(
                sql: """
                    INSERT INTO devices(token, uid, service, sandbox, updated) VALUES(?, ?, ?, ?, ?)
                    ON CONFLICT(token) DO UPDATE SET uid = excluded.uid, service = excluded.service, sandbox = excluded.sandbox,
                    updated = excluded.updated
                    """,
                arguments: [device.token, device.uid, device.service.rawValue, device.sandbox, device.updated])
        } }
    }

    /// The registration of `token`.
    public func device(token: String) async throws -> DeviceRegistration? {
        try await queue.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM devices d WHERE d.token = ?", arguments: [token]).flatMap(Self.device)
        }
    }

    /// The user's devices, newest first (then by token).
    public func devices(uid: String) async throws -> [DeviceRegistration] {
        try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM devices d WHERE d.uid = ? ORDER BY d.updated DESC, d.token", arguments: [uid])
                .compactMap(Self.device)
        }
    }

    /// Subscribers of `topic` in token order after `token`, read along the (topic, token) key.
    public func devices(topic: String, after token: String?, limit: Int) async throws -> [DeviceRegistration] {
        try await queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.columns) FROM device_topics s JOIN devices d ON d.token = s.token
                    WHERE s.topic = ? AND s.token > ? ORDER BY s.token LIMIT ?
                    """,
                arguments: [topic, token ?? "", max(0, limit)]
            ).compactMap(Self.device)
        }
    }

    /// Adds or removes the subscription; false when no device has this token.
    public func setTopic(_ topic: String, subscribed: Bool, token: String) async throws -> Bool {
        try await SQLiteFull.mapping { try await queue.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM devices WHERE token = ?)", arguments: [token]) == true else { return false }
            if subscribed {
                try db.execute(sql: "INSERT OR IGNORE INTO device_topics(topic, token) VALUES(?, ?)", arguments: [topic, token])
            } else {
                try db.execute(sql: "DELETE FROM device_topics WHERE topic = ? AND token = ?", arguments: [topic, token])
            }
            return true
        } }
    }

    /// Removes the device and its subscriptions in one transaction.
    public func remove(token: String) async throws -> Bool {
        try await SQLiteFull.mapping { try await queue.write { db in
            try db.execute(sql: "DELETE FROM device_topics WHERE token = ?", arguments: [token])
            try db.execute(sql: "DELETE FROM devices WHERE token = ?", arguments: [token])
            return db.changesCount > 0
        } }
    }

    /// Removes the user's devices and their subscriptions in one transaction.
    public func removeDevices(uid: String) async throws -> Int {
        try await SQLiteFull.mapping { try await queue.write { db in
            try db.execute(sql: "DELETE FROM device_topics WHERE token IN (SELECT token FROM devices WHERE uid = ?)", arguments: [uid])
            try db.execute(sql: "DELETE FROM devices WHERE uid = ?", arguments: [uid])
            return db.changesCount
        } }
    }

    /// Closes the file.
    public func close() async throws { try queue.close() }
}
