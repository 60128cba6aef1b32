public import Foundation

/// Where the scheduler keeps, per job, the scheduled time of the last run it started, so that a
/// restart knows what was missed and never runs a time twice.
///
/// The scheduler records a run *before* its handler is called: if the process dies mid-run,
/// that scheduled time is not run again on restart (at most once per scheduled time).
///
/// ```swift
/// actor SQLiteScheduleState: ScheduleStateStore {
///     func lastScheduledTime(job: String) async throws -> Date? { /* SELECT ... */ }
///     func recordStart(job: String, scheduled: Date) async throws { /* UPSERT ... */ }
/// }
/// ```
public protocol ScheduleStateStore: Sendable {
    /// The scheduled time of the last run that started for this job (nil = never ran).
    func lastScheduledTime(job: String) async throws -> Date?
    /// Records that the run for `scheduled` started; called before the handler runs.
    func recordStart(job: String, scheduled: Date) async throws
    /// Records the start unless a run for `scheduled` (or later) was already recorded, by this
    /// process or another sharing the store; true when this caller may run it. Several nodes of a
    /// cluster run each scheduler: this is what makes a tick run once cluster-wide.
    func claimStart(job: String, scheduled: Date) async throws -> Bool
}

extension ScheduleStateStore {
    /// A store only this process uses: recording is claiming.
    public func claimStart(job: String, scheduled: Date) async throws -> Bool {
        try await recordStart(job: job, scheduled: scheduled)
        return true
    }
}

/// A `ScheduleStateStore` that forgets everything when the process ends: for tests, and for
/// servers without a data folder (every start is then a first start: nothing is caught up).
package actor MemoryScheduleState: ScheduleStateStore {
    private var last: [String: Date]

    package init(_ last: [String: Date] = [:]) {
        self.last = last
    }

    package func lastScheduledTime(job: String) -> Date? {
        last[job]
    }

    package func recordStart(job: String, scheduled: Date) {
        last[job] = scheduled
    }
}
