import Foundation
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

    /// Runs one statement and returns all its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        do {
            return try connection.query(query, logger: logger).wait().rows
        } catch {
            throw PostgresStoreError(error)
        }
    }

    /// Runs one statement and returns how many rows it changed.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> Int {
        do {
            return try connection.query(query, logger: logger).wait().metadata.rows ?? 0
        } catch {
            throw PostgresStoreError(error)
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
                try execute("COMMIT")
                return result
            } catch let error as PostgresStoreError {
                rollBack()
                attempt += 1
                if error.isRetryable && attempt <= retries { continue }
                throw error
            } catch {
                rollBack()
                throw error
            }
        }
    }

    private func rollBack() {
        do {
            try execute("ROLLBACK")
        } catch {
            isBroken = true
        }
    }
}
