// TEMPORARY until the cron branch merges: the shapes the scheduler provides.
import Foundation
import Logging
import ServiceLifecycle

public struct CronExpression: Sendable, Hashable {
    public init(_ text: String) throws {}
    public func nextDate(after: Date, in timeZone: TimeZone) -> Date? { nil }
}
public enum MissedRunPolicy: Sendable { case skip, runOnce }
public struct Schedule: Sendable {
    public var cron: CronExpression
    public var timeZone: TimeZone
    public var missedRuns: MissedRunPolicy
    public init(cron: CronExpression, timeZone: TimeZone, missedRuns: MissedRunPolicy) {
        self.cron = cron
        self.timeZone = timeZone
        self.missedRuns = missedRuns
    }
}
public struct ScheduledEvent: Sendable {
    public let jobName: String
    public let scheduledTime: Date
    public let isCatchUp: Bool
    public let missedRuns: Int
}
public protocol ScheduleStateStore: Sendable {
    func lastScheduledTime(job: String) async throws -> Date?
    func recordStart(job: String, scheduled: Date) async throws
}
struct Scheduler: Service {
    init(
        jobs: [(name: String, schedule: Schedule)], state: any ScheduleStateStore, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        run: @escaping @Sendable (ScheduledEvent) async -> Void
    ) {}
    func run() async throws {}
}
