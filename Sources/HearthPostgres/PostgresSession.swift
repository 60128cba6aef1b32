import Foundation
import HearthStore
import Logging
import NIOCore
import PostgresNIO

/// One connection lent to one thread for the length of a store call. Statements block the thread
/// until PostgreSQL answers; a failed statement marks the session broken unless the transaction
/// around it was rolled back cleanly.
final class PostgresSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Set when the connection's state is unknown (an error outside a transaction that was rolled back).
    private(set) var isBroken = false

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// How long a statement may take before the session gives up on its connection. A statement
    /// on a connection that died mid-flight (the server restarted) could otherwise wait for ever,
    /// holding its thread and the namespace's writer.
    static let statementDeadline: TimeAmount = .seconds(60)

    /// True once a COMMIT was sent: if the connection fails now, whether it committed is unknown.
    private(set) var commitSent = false

    /// Runs one statement and returns all its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try wait(connection.query(query, logger: logger)).rows
    }

    /// Runs one statement and returns how many rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        try wait(connection.query(query, logger: logger)).metadata.rows ?? 0
    }

    /// Waits for `future` on this thread, at most ``statementDeadline``; a failure that is not the
    /// server's answer (the connection broke or timed out) leaves the session broken.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        let deadline = future.eventLoop.scheduleTask(in: Self.statementDeadline) {
            promise.fail(PostgresStoreError(sqlState: nil, message: "no answer from PostgreSQL within \(Self.statementDeadline.nanoseconds / 1_000_000_000) s"))
        }
        defer { deadline.cancel() }
        do {
            return try promise.futureResult.wait()
        } catch {
            let failure = PostgresStoreError(error)
            if failure.isConnectionFailure { isBroken = true }
            throw failure
        }
    }

    /// How a transaction sees other transactions' commits.
    enum Isolation: String {
        /// Each statement sees what was committed before it began; writers of one namespace are
        /// serialized by locking its counter row first.
        case readCommitted = "BEGIN ISOLATION LEVEL READ COMMITTED"
        /// One snapshot for every statement: what a `snapshot` read needs.
        case snapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        /// As if the transactions of every node ran one at a time: a read-check-write (an email taken?
        /// then save) fails with SQLSTATE 40001 when another node's commit made its read stale, and
        /// ``transaction(_:retries:_:)`` runs the body again on fresh data.
        case serializable = "BEGIN ISOLATION LEVEL SERIALIZABLE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. A
    /// serialization failure or deadlock (SQLSTATE 40001/40P01) runs the body again, up to `retries` times.
    func transaction<R>(_ isolation: Isolation, retries: Int = 5, _ body: () throws -> R) throws -> R {
        var attempt = 0
        while true {
            do {
                try execute(PostgresQuery(unsafeSQL: isolation.rawValue))
                let result = try body()
                commitSent = true
                try execute("COMMIT")
                commitSent = false
                return result
            } catch let error as PostgresStoreError {
                rollBack()
                attempt += 1
                if error.isRetryable && attempt <= retries { continue }
                // 53100 disk_full: answered as the stores' "disk full" (HTTP 507), not as an internal error.
                if error.sqlState == "53100" { throw StoreFullError(detail: error.description) }
                throw error
            } catch {
                rollBack()
                throw error
            }
        }
    }

    private func rollBack() {
        // A broken connection cannot roll back (the server ends the transaction when it goes).
        guard !isBroken else { return }
        do {
            try execute("ROLLBACK")
        } catch {
            isBroken = true
        }
    }
}
