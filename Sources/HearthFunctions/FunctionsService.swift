import Foundation
import HearthCore
import HearthDatabase
import HearthStore
import Logging
import ServiceLifecycle

/// Runs the outbox dispatchers and the scheduled jobs for the server's lifetime.
package struct FunctionsService: Service {
    let runtime: FunctionsRuntime
    /// What the functions' contexts read and write.
    let database: DatabaseService
    let logger: Logger

    package init(runtime: FunctionsRuntime, database: DatabaseService, logger: Logger) {
        self.runtime = runtime
        self.database = database
        self.logger = logger
    }

    /// How long a claimed idempotency key is remembered.
    static let keyRetentionMillis: Int64 = 30 * 24 * 3_600_000

    package func run() async throws {
        // Namespaces with triggers open now (the app's code declares them: they are created if
        // absent) and stay open, so events left from before a restart are delivered.
        for name in runtime.triggerNamespaces {
            do {
                let store = try await database.registry.pin(name).database.store
                // Idempotency keys are kept for 30 days: far longer than any retry schedule.
                let cutoff = runtime.clock() - Self.keyRetentionMillis
                try await store.write { try $0.forgetKeys(claimedBefore: cutoff) }
            } catch {
                logger.error("cannot open a namespace with triggers", metadata: ["hearth.ns": "\(name)", "hearth.error": "\(error)"])
            }
        }
        let scheduler = runtime.functions.schedules.isEmpty ? nil : makeScheduler()
        let runtime = self.runtime
        let database = self.database
        await withDiscardingTaskGroup { services in
            // The scheduler stops by itself on graceful shutdown and lets a running job finish (cancelling it here
            // cut every deploy's running job short, and its time is never run again).
            if let scheduler { services.addTask { await scheduler.run() } }
            // The trigger dispatchers are cancelled then: an event being delivered is delivered again after the
            // restart (at least once).
            services.addTask {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        try? await gracefulShutdown()
                        runtime.finish()
                    }
                    for await dispatcher in runtime.started {
                        let queue = dispatcher.queue.name
                        group.addTask { await dispatcher.run { event in await runtime.run(event, from: queue, database: database) } }
                    }
                    group.cancelAll()
                }
            }
        }
        logger.debug("functions stopped")
    }

    private func makeScheduler() -> Scheduler {
        let runtime = self.runtime
        let database = self.database
        let state = NamespaceScheduleState(registry: database.registry, namespace: runtime.defaultNamespace)
        return Scheduler(jobs: runtime.functions.schedules.map { ($0.name, $0.schedule) }, state: state, logger: logger) { event in
            _ = await runtime.runScheduled(event, trigger: FunctionsRuntime.tickDescription(event), database: database)
        }
    }
}

/// Scheduled jobs' last run times, kept as settings of the project's database (so they survive a
/// restart with the data folder).
package struct NamespaceScheduleState: ScheduleStateStore {
    let registry: NamespaceRegistry
    let namespace: String

    /// Keeps the times in `namespace`'s settings, opened through `registry`.
    package init(registry: NamespaceRegistry, namespace: String) {
        self.registry = registry
        self.namespace = namespace
    }

    private func key(_ job: String) -> String { "schedule:" + job }

    package func lastScheduledTime(job: String) async throws -> Date? {
        let key = key(job)
        let text = try await registry.withNamespace(namespace) { ns in try await ns.database.store.snapshot { try $0.setting(key) } }
        return text.flatMap(Int64.init).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    package func recordStart(job: String, scheduled: Date) async throws {
        let key = key(job)
        let millis = String(Int64((scheduled.timeIntervalSince1970 * 1000).rounded()))
        try await registry.withNamespace(namespace) { ns in try await ns.database.store.write { try $0.setSetting(key, millis) } }
    }

    /// Compares and records in one transaction that holds the namespace's writer lock where nodes
    /// share the store, so of several nodes reaching one tick, one runs it.
    package func claimStart(job: String, scheduled: Date) async throws -> Bool {
        let key = key(job)
        let millis = Int64((scheduled.timeIntervalSince1970 * 1000).rounded())
        return try await registry.withNamespace(namespace) { ns in
            try await ns.database.store.write { tx in
                _ = try tx.lockSequence()
                if let recorded = try tx.setting(key).flatMap(Int64.init), recorded >= millis { return false }
                try tx.setSetting(key, String(millis))
                return true
            }
        }
    }
}
