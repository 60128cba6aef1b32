public import Foundation
public import Logging
public import ServiceLifecycle

/// Runs scheduled jobs: a `Service` with one loop per job, for a `ServiceGroup`.
///
/// ```swift
/// let scheduler = Scheduler(
///     jobs: [(name: "nightly-cleanup", schedule: try Schedule("30 2 * * *", timeZone: berlin))],
///     state: stateStore, logger: logger
/// ) { event in
///     await cleanUp(upTo: event.scheduledTime)
/// }
/// let group = ServiceGroup(services: [server, scheduler], gracefulShutdownSignals: [.sigterm], logger: logger)
/// ```
///
/// - A job never runs twice at once. When a run lasts past the job's next scheduled times, those
///   times are skipped (a warning says how many) and the job next runs at its first scheduled
///   time after the run ended.
/// - Each run is recorded in `state` before its handler is called, so a scheduled time runs at
///   most once, even if the process dies during the run or the clock is set back.
/// - On start, the times missed since the job's last recorded run are handled by the schedule's
///   ``MissedRunPolicy``; a job with no recorded run just waits for its next time. Times missed
///   while the process was suspended (it woke up after more than one scheduled time) are
///   handled the same way.
/// - On graceful shutdown no new run starts and waiting stops at once; a run in progress is
///   left to finish. Cancellation is passed on to running handlers.
/// - `state` failing to read counts as "never ran" (no catch-up); failing to record a start
///   skips that run, to keep the at-most-once promise. Both are logged as errors.
public struct Scheduler: Service {
    package struct Job: Sendable {
        package let name: String
        package let schedule: Schedule
    }

    package let jobs: [Job]
    let state: any ScheduleStateStore
    let logger: Logger
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    let handler: @Sendable (ScheduledEvent) async -> Void

    /// Missed times are counted up to this many; a longer outage reports this number.
    package static let missedCountLimit = 10_000
    /// The longest single sleep: waking at least this often re-reads `now`, so a wall clock set
    /// forward or back moves the runs with it.
    static let longestSleep: Duration = .seconds(60)

    /// - Parameters:
    ///   - jobs: names (unique; a repeated name is logged and ignored) and schedules.
    ///   - now: the wall clock; injected for tests.
    ///   - sleep: waits for a duration, throwing when cancelled; injected for tests.
    ///   - run: the handler, called with one event per run; its errors are its own concern.
    public init(
        jobs: [(name: String, schedule: Schedule)],
        state: any ScheduleStateStore,
        logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        run: @escaping @Sendable (ScheduledEvent) async -> Void
    ) {
        var seen = Set<String>()
        var unique: [Job] = []
        for job in jobs {
            if seen.insert(job.name).inserted {
                unique.append(Job(name: job.name, schedule: job.schedule))
            } else {
                logger.error("scheduled job name used twice; the later one is ignored", metadata: [SchedulerLogKey.job: "\(job.name)"])
            }
        }
        self.jobs = unique
        self.state = state
        self.logger = logger
        self.now = now
        self.sleep = sleep
        self.handler = run
    }

    /// Runs every job's loop until graceful shutdown or cancellation.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for job in jobs {
                group.addTask { await self.loop(job) }
            }
        }
    }
}

/// The scheduler's log metadata keys.
package enum SchedulerLogKey {
    package static let job = "hearth.job"
    static let scheduled = "hearth.scheduled"
    package static let missed = "hearth.missed"
    static let error = "hearth.error"
}
