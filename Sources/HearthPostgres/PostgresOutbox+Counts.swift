import HearthStore
import PostgresNIO

extension PostgresOutboxHost {
    /// Live events and dead letters of this box, each counted up to `limit` over the `hearth_outbox_due (box, dead,
    /// next_at)` index, so that a scrape of a huge outbox stops at the bound instead of reading every event.
    func outboxCounts(limit: Int) throws -> OutboxCounts {
        let bound = max(0, limit)
        let waiting = try session.query(
            "SELECT count(*) FROM (SELECT 1 FROM hearth_outbox WHERE box = \(box) AND NOT dead LIMIT \(bound)) AS w"
        ).first?.decode(Int64.self) ?? 0
        let dead = try session.query(
            "SELECT count(*) FROM (SELECT 1 FROM hearth_outbox WHERE box = \(box) AND dead LIMIT \(bound)) AS d"
        ).first?.decode(Int64.self) ?? 0
        return OutboxCounts(waiting: Int(waiting), dead: Int(dead))
    }
}
