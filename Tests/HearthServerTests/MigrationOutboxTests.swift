@testable import HearthCommand
import HearthStore
import Testing

/// How `hearth migrate` carries an outbox over: live and dead events with their attempts, next attempt and last error.
@Suite("hearth migrate: outbox")
struct MigrationOutboxTests {
    @Test("live, retried and dead events arrive with the same state, in the same order")
    func outboxIsCarriedOver() async throws {
        let from = MemoryStore()
        try await from.write { tx in
            _ = try tx.enqueueEvent(function: "fresh", payload: Array("{}".utf8), at: 1_000)
            let retried = try tx.enqueueEvent(function: "retried", payload: Array("[1]".utf8), at: 2_000)
            try tx.retryEvent(retried, attempts: 2, at: 9_000, error: "timeout")
            let dead = try tx.enqueueEvent(function: "dead", payload: [], at: 3_000)
            try tx.buryEvent(dead, attempts: 5, error: "gave up")
            _ = try tx.enqueueEvent(function: "done", payload: [], at: 4_000)
            try tx.finishEvents([4])
        }
        let events = try await from.snapshot { try MigrationCopy.events(in: $0) }
        let to = MemoryStore()
        try await to.write { try MigrationCopy.restore(events, into: $0) }
        let copied = try await to.snapshot { try MigrationCopy.events(in: $0) }

        func state(_ events: [OutboxEvent]) -> [String] {
            events.sorted { $0.id < $1.id }.map { "\($0.function) \($0.payload) \($0.attempts) \($0.nextAttemptAt) \($0.lastError ?? "-") \($0.dead)" }
        }
        #expect(state(copied) == state(events))
        #expect(state(copied) == ["fresh [123, 125] 0 1000 - false", "retried [91, 49, 93] 2 9000 timeout false", "dead [] 5 3000 gave up true"])
    }
}
