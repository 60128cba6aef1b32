import HearthStore
import NIOCore
import PostgresNIO

/// A transaction that holds an outbox: the rows of `hearth_outbox` and `hearth_claimed_keys` whose
/// `box` is its own (a namespace's name for database triggers), so an event commits with the change
/// that caused it.
protocol PostgresOutboxHost: OutboxReader, OutboxWriter {
    var session: PostgresSession { get }
    var box: String { get }
}

enum PostgresOutbox {
    static let columns = "id, fn, payload, created, attempts, next_at, error, dead"

    static func event(_ row: PostgresRow) throws -> OutboxEvent {
        let (id, fn, payload, created, attempts, nextAt, error, dead) = try row.decode(
            (Int64, String, ByteBuffer, Int64, Int, Int64, String?, Bool).self)
        return OutboxEvent(
            id: id, function: fn, payload: Array(payload.readableBytesView), createdAt: created, attempts: attempts,
            nextAttemptAt: nextAt, lastError: error, dead: dead)
    }
}

extension PostgresOutboxHost {
    func dueEvents(now: Int64, limit: Int) throws -> [OutboxEvent] {
        try session.query(
            """
            SELECT \(unescaped: PostgresOutbox.columns) FROM hearth_outbox
            WHERE box = \(box) AND NOT dead AND next_at <= \(now) ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(PostgresOutbox.event)
    }

    /// `FOR UPDATE SKIP LOCKED`: two nodes leasing at once get different events, and neither waits.
    func leaseDueEvents(now: Int64, limit: Int, lease: Int64) throws -> [OutboxEvent] {
        let events = try session.query(
            """
            UPDATE hearth_outbox SET next_at = \(now + lease)
            WHERE id IN (
                SELECT id FROM hearth_outbox WHERE box = \(box) AND NOT dead AND next_at <= \(now)
                ORDER BY id LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: PostgresOutbox.columns)
            """
        ).map(PostgresOutbox.event)
        // The run sees the event as it was due, not with its lease as the next attempt.
        return events.sorted { $0.id < $1.id }.map { event in
            var event = event
            event.nextAttemptAt = now
            return event
        }
    }

    func nextEventTime() throws -> Int64? {
        try session.query("SELECT min(next_at) FROM hearth_outbox WHERE box = \(box) AND NOT dead").first?.decode(Int64?.self)
    }

    func deadEvents(after id: Int64, limit: Int) throws -> [OutboxEvent] {
        try session.query(
            """
            SELECT \(unescaped: PostgresOutbox.columns) FROM hearth_outbox
            WHERE box = \(box) AND dead AND id > \(id) ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(PostgresOutbox.event)
    }

    func event(_ id: Int64) throws -> OutboxEvent? {
        try session.query("SELECT \(unescaped: PostgresOutbox.columns) FROM hearth_outbox WHERE box = \(box) AND id = \(id)")
            .first.map(PostgresOutbox.event)
    }

    func enqueueEvent(function: String, payload: [UInt8], at: Int64) throws -> Int64 {
        let rows = try session.query(
            """
            INSERT INTO hearth_outbox(box, fn, payload, created, next_at)
            VALUES (\(box), \(function), \(ByteBuffer(bytes: payload)), \(at), \(at)) RETURNING id
            """)
        guard let id = try rows.first?.decode(Int64.self) else {
            throw PostgresStoreError(sqlState: nil, message: "the outbox returned no id")
        }
        return id
    }

    func finishEvents(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try session.execute("DELETE FROM hearth_outbox WHERE box = \(box) AND id = ANY(\(ids)::bigint[])")
    }

    func retryEvent(_ id: Int64, attempts: Int, at: Int64, error: String) throws {
        try session.execute(
            "UPDATE hearth_outbox SET attempts = \(attempts), next_at = \(at), error = \(error) WHERE box = \(box) AND id = \(id)")
    }

    func buryEvent(_ id: Int64, attempts: Int, error: String) throws {
        try session.execute(
            "UPDATE hearth_outbox SET attempts = \(attempts), error = \(error), dead = true WHERE box = \(box) AND id = \(id)")
    }

    func reviveEvent(_ id: Int64, at: Int64) throws -> Bool {
        try session.execute(
            "UPDATE hearth_outbox SET dead = false, attempts = 0, next_at = \(at) WHERE box = \(box) AND id = \(id) AND dead") > 0
    }

    func isClaimed(_ key: String) throws -> Bool {
        try !session.query("SELECT 1 FROM hearth_claimed_keys WHERE box = \(box) AND k = \(key)").isEmpty
    }

    func claimKey(_ key: String, at: Int64) throws -> Bool {
        try session.execute("INSERT INTO hearth_claimed_keys(box, k, at) VALUES (\(box), \(key), \(at)) ON CONFLICT DO NOTHING") > 0
    }

    func forgetKeys(claimedBefore time: Int64) throws {
        try session.execute("DELETE FROM hearth_claimed_keys WHERE box = \(box) AND at < \(time)")
    }
}
