import Foundation
import HearthDatabase
import Logging
import Synchronization

extension FunctionsRuntime {
    /// What became of asking for a scheduled job to run now.
    package enum ManualRun: Sendable {
        /// It ran; the run as logged.
        case ran(FunctionRun)
        /// No scheduled job has that name.
        case unknown
        /// The job is running already (one run of a job at a time).
        case busy
    }

    /// Runs a scheduled job's handler for `event` with the context its ticks get, and logs the run in ``runs``.
    /// Errors are logged, not thrown: the scheduler carries on either way.
    func runScheduled(_ event: ScheduledEvent, trigger: String, database: DatabaseService) async -> FunctionRun? {
        guard let entry = functions.schedules.first(where: { $0.name == event.jobName }) else { return nil }
        runningJobs.withLock { _ = $0.insert(entry.name) }
        defer { runningJobs.withLock { _ = $0.remove(entry.name) } }
        let context = context(for: entry.name, database: database)
        return await runs.timed(entry.name, trigger: trigger, clock: clock) {
            do {
                try await entry.handler(event, context)
                return ((), .ok, nil)
            } catch {
                context.logger.error(
                    "scheduled job failed", metadata: ["hearth.scheduled": "\(event.scheduledTime)", "hearth.error": "\(error)"])
                return ((), .error, String(describing: error))
            }
        }.1
    }

    /// Runs the scheduled job `name` now, as its next tick would (same handler and context, logged as a run), without
    /// moving its schedule: its next tick still comes at its time. The event's `scheduledTime` is now.
    package func runScheduleNow(_ name: String, database: DatabaseService) async -> ManualRun {
        guard functions.schedules.contains(where: { $0.name == name }) else { return .unknown }
        guard !runningJobs.withLock({ $0.contains(name) }) else { return .busy }
        let now = Date(timeIntervalSince1970: Double(clock()) / 1000)
        guard let run = await runScheduled(ScheduledEvent(jobName: name, scheduledTime: now), trigger: "run now", database: database) else {
            return .unknown
        }
        return .ran(run)
    }

    /// How a scheduler tick is described in the run log.
    static func tickDescription(_ event: ScheduledEvent) -> String {
        let time = ISO8601DateFormatter().string(from: event.scheduledTime)
        return event.isCatchUp ? "catch-up for \(event.missedRuns) missed (latest \(time))" : "schedule \(time)"
    }
}
