import GRDB
import HearthStore

extension SQLiteOutboxHost {
    /// Live events and dead letters, each counted up to `limit` over the `outbox_due (dead, next_at)` index: the
    /// index alone answers (no row, no payload is read), and the bound caps the work of a scrape on a huge outbox.
    func outboxCounts(limit: Int) throws -> OutboxCounts {
        let sql = "SELECT count(*) FROM (SELECT 1 FROM outbox WHERE dead = ? LIMIT ?)"
        let statement = try db.cachedStatement(sql: sql)
        let waiting = try Int.fetchOne(statement, arguments: [0, limit]) ?? 0
        let dead = try Int.fetchOne(statement, arguments: [1, limit]) ?? 0
        return OutboxCounts(waiting: waiting, dead: dead)
    }
}
