public import Foundation

/// When a job's cron expression fires, in which time zone, and what to do about times missed
/// while the server was down.
///
/// ```swift
/// let report = try Schedule("0 6 * * MON-FRI", timeZone: TimeZone(identifier: "Europe/Berlin")!)
/// ```
public struct Schedule: Sendable, Hashable {
    /// The times the job runs at, as wall-clock time in `timeZone`.
    public var cron: CronExpression
    /// The time zone whose wall clock the expression is read in; UTC (`.gmt`) by default.
    public var timeZone: TimeZone
    /// What to do about times missed while the job could not run; `.runOnce` by default.
    public var missedRuns: MissedRunPolicy

    /// A schedule from a parsed expression.
    public init(cron: CronExpression, timeZone: TimeZone = .gmt, missedRuns: MissedRunPolicy = .runOnce) {
        self.cron = cron
        self.timeZone = timeZone
        self.missedRuns = missedRuns
    }

    /// Parses `cron` (see ``CronExpression/init(_:)``).
    public init(_ cron: String, timeZone: TimeZone = .gmt, missedRuns: MissedRunPolicy = .runOnce) throws(CronError) {
        self.init(cron: try CronExpression(cron), timeZone: timeZone, missedRuns: missedRuns)
    }

    /// The first time the job is due strictly after `date`.
    public func nextDate(after date: Date) -> Date? {
        cron.nextDate(after: date, in: timeZone)
    }
}

/// What a job does about scheduled times that passed while it could not run (the server was
/// down, or the host was suspended).
public enum MissedRunPolicy: Sendable, Hashable {
    /// Wait for the next scheduled time; missed times are logged and dropped.
    case skip
    /// Run once as soon as possible for all the missed times together (the event says how many,
    /// with `isCatchUp` set), then follow the schedule. The default: a nightly cleanup that was
    /// down at 02:00 still runs that night, but only once even after a week away.
    case runOnce
}

/// One run of a scheduled job, handed to its handler.
public struct ScheduledEvent: Sendable, Hashable {
    /// The name the job was registered under.
    public let jobName: String
    /// The time the run is for; for a catch-up run, the latest of the missed times.
    public let scheduledTime: Date
    /// Whether this run stands in for times missed while the job could not run.
    public let isCatchUp: Bool
    /// How many scheduled times a catch-up run stands in for (at least 1); 0 for an on-time run.
    public let missedRuns: Int

    /// An event as the scheduler makes them; public so that handlers can be tested with one.
    public init(jobName: String, scheduledTime: Date, isCatchUp: Bool = false, missedRuns: Int = 0) {
        self.jobName = jobName
        self.scheduledTime = scheduledTime
        self.isCatchUp = isCatchUp
        self.missedRuns = missedRuns
    }
}
