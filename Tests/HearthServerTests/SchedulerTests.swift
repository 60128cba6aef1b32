import Foundation
import HearthFunctions
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import HearthServer

/// The scheduler's loops, driven by a virtual clock: hours of schedule run in microseconds.
@Suite(.timeLimit(.minutes(1))) struct SchedulerTests {
    @Test func runsAtScheduledTimes() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:00:10Z"), horizon: try CronTests.date("2026-01-01T01:00:30Z"))
        let runs = Runs(clock)
        let scheduler = try makeScheduler("*/15 * * * *", clock: clock, runs: runs)
        try await runUntilParked(scheduler, clock)
        #expect(runs.times == ["2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:00:00Z"])
        #expect(runs.startedAt == runs.times)
        #expect(runs.events.allSatisfy { !$0.isCatchUp && $0.missedRuns == 0 && $0.jobName == "job" })
    }

    @Test func overrunSkipsTheTimesItCovers() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:00:00Z"), horizon: try CronTests.date("2026-01-01T01:20:00Z"))
        let logs = LogCapture()
        let runs = Runs(clock) { event in
            if event.scheduledTime == (try? CronTests.date("2026-01-01T00:15:00Z")) { clock.advance(40 * 60) }  // until 00:55
        }
        let scheduler = try makeScheduler("*/15 * * * *", clock: clock, runs: runs, logger: logs.logger)
        try await runUntilParked(scheduler, clock)
        #expect(runs.times == ["2026-01-01T00:15:00Z", "2026-01-01T01:00:00Z", "2026-01-01T01:15:00Z"])
        #expect(runs.mostAtOnce == 1)
        let warning = try #require(logs.entries.first { $0.level == .warning })
        #expect(warning.message.contains("lasted past"))
        #expect(warning.metadata[SchedulerLogKey.missed] == "2")
        #expect(warning.metadata[SchedulerLogKey.job] == "job")
    }

    @Test func aRunEndingOnAScheduledTimeSkipsIt() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:00:00Z"), horizon: try CronTests.date("2026-01-01T00:40:00Z"))
        let runs = Runs(clock) { event in
            if event.scheduledTime == (try? CronTests.date("2026-01-01T00:15:00Z")) { clock.advance(15 * 60) }  // until 00:30
        }
        try await runUntilParked(try makeScheduler("*/15 * * * *", clock: clock, runs: runs), clock)
        #expect(runs.times == ["2026-01-01T00:15:00Z"])
    }

    @Test func catchesUpOnceAfterDowntime() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T03:10:00Z"), horizon: try CronTests.date("2026-01-01T04:30:00Z"))
        let state = MemoryScheduleState(["job": try CronTests.date("2026-01-01T00:00:00Z")])
        let runs = Runs(clock)
        let scheduler = try makeScheduler("0 * * * *", clock: clock, runs: runs, state: state)
        try await runUntilParked(scheduler, clock)
        #expect(runs.times == ["2026-01-01T03:00:00Z", "2026-01-01T04:00:00Z"])
        #expect(runs.startedAt == ["2026-01-01T03:10:00Z", "2026-01-01T04:00:00Z"])
        #expect(runs.events.map(\.isCatchUp) == [true, false])
        #expect(runs.events.map(\.missedRuns) == [3, 0])  // 01:00, 02:00 and 03:00
        #expect(await state.lastScheduledTime(job: "job") == (try CronTests.date("2026-01-01T04:00:00Z")))
    }

    @Test func skipPolicyWaitsForTheNextTime() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T03:10:00Z"), horizon: try CronTests.date("2026-01-01T04:30:00Z"))
        let state = MemoryScheduleState(["job": try CronTests.date("2026-01-01T00:00:00Z")])
        let logs = LogCapture()
        let runs = Runs(clock)
        let scheduler = try makeScheduler("0 * * * *", missed: .skip, clock: clock, runs: runs, state: state, logger: logs.logger)
        try await runUntilParked(scheduler, clock)
        #expect(runs.times == ["2026-01-01T04:00:00Z"])
        #expect(!runs.events[0].isCatchUp)
        #expect(logs.entries.contains { $0.level == .info && $0.metadata[SchedulerLogKey.missed] == "3" })
    }

    @Test func aNewJobDoesNotCatchUp() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T03:10:00Z"), horizon: try CronTests.date("2026-01-01T04:30:00Z"))
        let runs = Runs(clock)
        try await runUntilParked(try makeScheduler("0 * * * *", clock: clock, runs: runs), clock)
        #expect(runs.times == ["2026-01-01T04:00:00Z"])
        #expect(!runs.events[0].isCatchUp)
    }

    @Test func nothingMissedMeansNoCatchUp() async throws {
        // The 12:00 run was recorded and the process died during it: 12:00 is not run again.
        let clock = FakeClock(try CronTests.date("2026-01-01T12:05:00Z"), horizon: try CronTests.date("2026-01-01T12:20:00Z"))
        let state = MemoryScheduleState(["job": try CronTests.date("2026-01-01T12:00:00Z")])
        let runs = Runs(clock)
        try await runUntilParked(try makeScheduler("*/15 * * * *", clock: clock, runs: runs, state: state), clock)
        #expect(runs.times == ["2026-01-01T12:15:00Z"])
        #expect(!runs.events[0].isCatchUp)
    }

    @Test func aClockBehindTheLastRunDoesNotRunItAgain() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T12:05:00Z"), horizon: try CronTests.date("2026-01-01T12:40:00Z"))
        let state = MemoryScheduleState(["job": try CronTests.date("2026-01-01T12:15:00Z")])
        let runs = Runs(clock)
        try await runUntilParked(try makeScheduler("*/15 * * * *", clock: clock, runs: runs, state: state), clock)
        #expect(runs.times == ["2026-01-01T12:30:00Z"])
    }

    @Test func startIsRecordedBeforeTheHandlerRuns() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T03:10:00Z"), horizon: try CronTests.date("2026-01-01T06:30:00Z"))
        let state = MemoryScheduleState(["job": try CronTests.date("2026-01-01T01:00:00Z")])
        let seen = Locked<[Date?]>([])
        let runs = Runs(clock) { event in
            let recorded = await state.lastScheduledTime(job: event.jobName)
            seen.value.append(recorded)
        }
        try await runUntilParked(try makeScheduler("0 * * * *", clock: clock, runs: runs, state: state), clock)
        #expect(runs.events.count == 4)  // catch-up for 02:00–03:00, then 04:00, 05:00, 06:00
        #expect(seen.value == runs.events.map(\.scheduledTime))
    }

    @Test func timesPassedDuringASuspendAreMissedRuns() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:30:00Z"), horizon: try CronTests.date("2026-01-01T05:30:00Z"))
        let runs = Runs(clock) { event in
            if event.scheduledTime == (try? CronTests.date("2026-01-01T01:00:00Z")) { clock.suspendDuringNextSleep(3 * 3600) }
        }
        try await runUntilParked(try makeScheduler("0 * * * *", clock: clock, runs: runs), clock)
        // Woke at 04:01: 02:00, 03:00 and 04:00 are covered by one catch-up run.
        #expect(runs.times == ["2026-01-01T01:00:00Z", "2026-01-01T04:00:00Z", "2026-01-01T05:00:00Z"])
        #expect(runs.events.map(\.isCatchUp) == [false, true, false])
        #expect(runs.events.map(\.missedRuns) == [0, 3, 0])
    }

    @Test func aSlowJobDoesNotHoldUpAnother() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:50:00Z"), horizon: try CronTests.date("2026-01-01T01:45:00Z"), loops: 2)
        let fastRan = Locked(false)
        let runs = Runs(clock) { event in
            if event.jobName == "fast" { fastRan.value = true }
            // The 01:00 run of "slow" lasts (in real time) until "fast" has run at 01:30.
            if event.jobName == "slow" { #expect(await Self.eventually { fastRan.value }) }
        }
        let scheduler = Scheduler(
            jobs: [(name: "slow", schedule: try Schedule("0 * * * *")), (name: "fast", schedule: try Schedule("30 * * * *"))],
            state: MemoryScheduleState(), logger: LogCapture().logger, now: clock.now, sleep: clock.sleep,
            run: { await runs.record($0) })
        try await runUntilParked(scheduler, clock, jobs: 2)
        #expect(runs.events.map(\.jobName) == ["fast", "slow"])  // in the order they finished
        #expect(runs.times == ["2026-01-01T01:30:00Z", "2026-01-01T01:00:00Z"])
    }

    @Test func gracefulShutdownLetsARunningHandlerFinish() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T11:59:30Z"), horizon: try CronTests.date("2027-01-01T00:00:00Z"))
        let finished = Locked<(sawShutdown: Bool, cancelled: Bool)?>(nil)
        let started = Locked(false)
        let runs = Runs(clock) { _ in
            started.value = true
            let sawShutdown = await Self.eventually { Task.isShuttingDownGracefully }
            finished.value = (sawShutdown, Task.isCancelled)
        }
        let scheduler = try makeScheduler("* * * * *", clock: clock, runs: runs)
        let group = ServiceGroup(services: [scheduler], logger: LogCapture().logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await Self.eventually { started.value })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(runs.times == ["2026-01-01T12:00:00Z"])  // no run after the one in progress
        #expect(finished.value?.sawShutdown == true)
        #expect(finished.value?.cancelled == false)
    }

    @Test func gracefulShutdownEndsTheWait() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:10:00Z"), horizon: try CronTests.date("2026-01-01T00:30:00Z"))
        let runs = Runs(clock)
        let scheduler = try makeScheduler("0 * * * *", clock: clock, runs: runs)
        let group = ServiceGroup(services: [scheduler], logger: LogCapture().logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await Self.eventually { clock.parked == 1 })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(runs.events.isEmpty)
        #expect(clock.parked == 0)
    }

    @Test func aRunThatCannotBeRecordedIsSkipped() async throws {
        let clock = FakeClock(try CronTests.date("2026-01-01T00:00:00Z"), horizon: try CronTests.date("2026-01-01T00:50:00Z"))
        let logs = LogCapture()
        let runs = Runs(clock)
        let scheduler = try makeScheduler("*/15 * * * *", clock: clock, runs: runs, state: BrokenState(), logger: logs.logger)
        try await runUntilParked(scheduler, clock)
        #expect(runs.events.isEmpty)
        #expect(logs.entries.filter { $0.level == .error }.count == 4)  // the read, then 00:15, 00:30, 00:45
    }

    @Test func repeatedJobNamesAreIgnored() throws {
        let logs = LogCapture()
        let scheduler = Scheduler(
            jobs: [(name: "a", schedule: try Schedule("@daily")), (name: "a", schedule: try Schedule("@hourly"))],
            state: MemoryScheduleState(), logger: logs.logger, run: { _ in })
        #expect(scheduler.jobs.map(\.schedule.cron) == [try CronExpression("@daily")])
        #expect(logs.entries.map(\.level) == [.error])
    }

    @Test func passedTimesAreCountedUpToALimit() throws {
        let schedule = try Schedule("* * * * *")
        let start = try CronTests.date("2026-01-01T00:00:00Z")
        let few = Scheduler.passedTimes(schedule, after: start, through: start.addingTimeInterval(630))
        #expect(few?.count == 10)
        #expect(few?.latest == start.addingTimeInterval(600))
        let many = Scheduler.passedTimes(schedule, after: start, through: try CronTests.date("2026-01-15T00:00:30Z"))
        #expect(many?.count == Scheduler.missedCountLimit)
        #expect(many?.latest == (try CronTests.date("2026-01-15T00:00:00Z")))
        #expect(Scheduler.passedTimes(schedule, after: start, through: start.addingTimeInterval(59)) == nil)
    }

    // MARK: Helpers

    func makeScheduler(
        _ cron: String, missed: MissedRunPolicy = .runOnce, clock: FakeClock, runs: Runs,
        state: any ScheduleStateStore = MemoryScheduleState(), logger: Logger = LogCapture().logger
    ) throws -> Scheduler {
        Scheduler(
            jobs: [(name: "job", schedule: try Schedule(cron, missedRuns: missed))], state: state, logger: logger,
            now: clock.now, sleep: clock.sleep, run: { await runs.record($0) })
    }

    /// Runs the scheduler until every job waits beyond the clock's horizon, then cancels it (so
    /// this also proves the loops end on cancellation).
    func runUntilParked(_ scheduler: Scheduler, _ clock: FakeClock, jobs: Int = 1) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await scheduler.run() }
            let parked = await Self.eventually { clock.parked == jobs }
            group.cancelAll()
            try await group.waitForAll()
            try #require(parked, "the job loops did not reach the clock's horizon (\(clock.parked) of \(jobs) parked at \(clock.now()))")
        }
        #expect(clock.parked == 0)
    }
}

extension SchedulerTests {
    /// Polls `condition` every millisecond for up to five seconds of real time.
    static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<5_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    /// A value behind a lock, for closures to share.
    final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>

        init(_ value: Value) {
            mutex = Mutex(value)
        }

        var value: Value {
            get { mutex.withLock { $0 } }
            set { mutex.withLock { $0 = newValue } }
        }
    }

    /// Virtual time: `sleep` moves the clock forward at once instead of waiting, so a schedule runs
    /// in the same order every time. A sleep that would pass `horizon` parks instead (suspends until
    /// cancelled): that is where a test stops the scheduler and looks.
    ///
    /// With several job loops (`loops`), no sleep moves the clock until every loop has begun its first one,
    /// so each loop starts from the same time: a loop that started late (a busy machine) would otherwise
    /// begin after a time another loop's sleep had already passed, and skip it. A sleep ends at the time it
    /// began plus its duration, or at the clock's time if another loop has already moved it further: sleeps
    /// never return instantly in real time, so one loop can run many steps while another waits to be resumed
    /// (seen: the fast loop of `aSlowJobDoesNotHoldUpAnother` reached the horizon before the slow loop's first
    /// sleep had ended, and the slow loop's "from now" step then parked it without its 01:00 run).
    final class FakeClock: Sendable {
        private struct State {
            var now: Date
            let horizon: Date
            var parked = 0
            var suspend: TimeInterval = 0
            var sleepsBegun = 0
        }

        private let state: Mutex<State>
        private let loops: Int

        init(_ start: Date, horizon: Date, loops: Int = 1) {
            state = Mutex(State(now: start, horizon: horizon))
            self.loops = loops
        }

        var parked: Int { state.withLock { $0.parked } }

        @Sendable func now() -> Date { state.withLock { $0.now } }

        /// Moves the clock forward, as a handler that takes this long would.
        func advance(_ seconds: TimeInterval) { state.withLock { $0.now += seconds } }

        /// The next sleep lasts this much longer than asked, as if the host were suspended.
        func suspendDuringNextSleep(_ seconds: TimeInterval) { state.withLock { $0.suspend = seconds } }

        @Sendable func sleep(_ duration: Duration) async throws {
            try Task.checkCancellation()
            let began = state.withLock { s in
                s.sleepsBegun += 1
                return s.now
            }
            while state.withLock({ $0.sleepsBegun < loops }) { try await Task.sleep(for: .milliseconds(1)) }
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            let parks = state.withLock { s in
                let target = began + seconds + s.suspend
                if target > s.horizon {
                    s.parked += 1
                    return true
                }
                (s.now, s.suspend) = (max(s.now, target), 0)
                return false
            }
            guard parks else { return }
            defer { state.withLock { $0.parked -= 1 } }
            try await Task.sleep(for: .seconds(600))  // ends as soon as the task is cancelled
        }
    }

    /// The events a handler was called with, when (by the fake clock), and how many ran at once.
    final class Runs: Sendable {
        private struct State {
            var events: [ScheduledEvent] = []
            var startedAt: [Date] = []
            var active = 0
            var mostAtOnce = 0
        }

        private let state = Mutex(State())
        private let clock: FakeClock
        private let body: @Sendable (ScheduledEvent) async -> Void

        init(_ clock: FakeClock, body: @escaping @Sendable (ScheduledEvent) async -> Void = { _ in }) {
            self.clock = clock
            self.body = body
        }

        func record(_ event: ScheduledEvent) async {
            let now = clock.now()
            state.withLock { s in
                s.startedAt.append(now)
                s.active += 1
                s.mostAtOnce = max(s.mostAtOnce, s.active)
            }
            await Task.yield()
            await body(event)
            state.withLock { s in
                s.events.append(event)
                s.active -= 1
            }
        }

        var events: [ScheduledEvent] { state.withLock { $0.events } }
        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
        var times: [String] { events.map { $0.scheduledTime.ISO8601Format() } }
        var startedAt: [String] { state.withLock { $0.startedAt.map { $0.ISO8601Format() } } }
    }

    /// A state store whose every call fails.
    struct BrokenState: ScheduleStateStore {
        struct Failure: Error {}
        func lastScheduledTime(job: String) async throws -> Date? { throw Failure() }
        func recordStart(job: String, scheduled: Date) async throws { throw Failure() }
    }

    /// A logger that keeps what it is given.
    final class LogCapture: Sendable {
        struct Entry: Sendable {
            let level: Logger.Level
            let message: String
            let metadata: [String: String]
        }

        private let stored = Mutex<[Entry]>([])
        var entries: [Entry] { stored.withLock { $0 } }

        var logger: Logger {
            var logger = Logger(label: "scheduler-test") { _ in Handler(capture: self) }
            logger.logLevel = .trace
            return logger
        }

        fileprivate func append(_ entry: Entry) { stored.withLock { $0.append(entry) } }

        struct Handler: LogHandler {
            let capture: LogCapture
            var metadata: Logger.Metadata = [:]
            var metadataProvider: Logger.MetadataProvider?
            var logLevel: Logger.Level = .trace

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                let all = metadata.merging(event.metadata ?? [:]) { $1 }
                capture.append(Entry(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
            }
        }
    }
}
