import Foundation
import Logging
import ServiceLifecycle

extension Scheduler {
    /// One job: catch up on what was missed while down, then wait, run, repeat.
    func loop(_ job: Job) async {
        var logger = self.logger
        logger[metadataKey: SchedulerLogKey.job] = "\(job.name)"
        var cursor = now()
        let last: Date?
        do {
            last = try await state.lastScheduledTime(job: job.name)
        } catch {
            logger.error("cannot read when the job last ran; not catching up", metadata: [SchedulerLogKey.error: "\(error)"])
            last = nil
        }
        if let last, let missed = Scheduler.passedTimes(job.schedule, after: last, through: cursor) {
            cursor = await catchUp(job, missed: missed, logger: logger) ?? cursor
        } else if let last, last > cursor {
            cursor = last  // the clock is behind the last run: never run a time that already ran
        }
        while !isStopping {
            guard let due = job.schedule.nextDate(after: cursor) else {
                logger.error("the schedule has no next time; the job stops")
                return
            }
            guard await wait(until: due) else { return }
            let woke = now()
            if let late = Scheduler.passedTimes(job.schedule, after: due, through: woke) {
                // Woke after later times had passed too (the host was suspended): treat all as missed.
                let missed = (count: min(late.count + 1, Scheduler.missedCountLimit), latest: late.latest)
                cursor = await catchUp(job, missed: missed, logger: logger) ?? woke
            } else {
                cursor = await perform(ScheduledEvent(jobName: job.name, scheduledTime: due), job, logger: logger) ?? due
            }
        }
    }

    private var isStopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }

    /// Applies the job's missed-run policy; returns when the catch-up run ended, if there was one.
    private func catchUp(_ job: Job, missed: (count: Int, latest: Date), logger: Logger) async -> Date? {
        let metadata: Logger.Metadata = [SchedulerLogKey.missed: "\(missed.count)", SchedulerLogKey.scheduled: "\(missed.latest)"]
        switch job.schedule.missedRuns {
        case .skip:
            logger.info("scheduled times were missed; skipping them", metadata: metadata)
            return nil
        case .runOnce:
            guard !isStopping else { return nil }
            logger.info("scheduled times were missed; running once for them", metadata: metadata)
            let event = ScheduledEvent(jobName: job.name, scheduledTime: missed.latest, isCatchUp: true, missedRuns: missed.count)
            return await perform(event, job, logger: logger)
        }
    }

    /// Records the run, runs the handler, reports an overrun; returns when the run ended (nil if
    /// the start could not be recorded and the run was skipped).
    private func perform(_ event: ScheduledEvent, _ job: Job, logger: Logger) async -> Date? {
        var logger = logger
        logger[metadataKey: SchedulerLogKey.scheduled] = "\(event.scheduledTime)"
        do {
            guard try await state.claimStart(job: event.jobName, scheduled: event.scheduledTime) else {
                logger.debug("another node runs this scheduled time")
                return event.scheduledTime
            }
        } catch {
            logger.error("cannot record the run's start; skipping the run", metadata: [SchedulerLogKey.error: "\(error)"])
            return nil
        }
        logger.debug("scheduled run starting")
        await handler(event)
        let ended = max(now(), event.scheduledTime)
        logger.debug("scheduled run finished")
        if let overrun = Scheduler.passedTimes(job.schedule, after: event.scheduledTime, through: ended) {
            logger.warning(
                "scheduled run lasted past the job's next scheduled times; they are skipped",
                metadata: [SchedulerLogKey.missed: "\(overrun.count)"])
        }
        return ended
    }

    /// Sleeps until `due` by the injected clock, in steps of at most `longestSleep`; false if
    /// graceful shutdown or cancellation came first.
    private func wait(until due: Date) async -> Bool {
        let sleep = self.sleep
        while !isStopping {
            let remaining = due.timeIntervalSince(now())
            if remaining <= 0 { return true }
            let step = min(Duration.seconds(remaining), Scheduler.longestSleep)
            do {
                try await cancelWhenGracefulShutdown { try await sleep(step) }
            } catch {
                return false
            }
        }
        return false
    }

    /// The scheduled times in (`start`, `end`]: how many (up to `missedCountLimit`) and the latest.
    package static func passedTimes(_ schedule: Schedule, after start: Date, through end: Date) -> (count: Int, latest: Date)? {
        var count = 0
        var latest: Date?
        var cursor = start
        while let next = schedule.nextDate(after: cursor), next <= end {
            count += 1
            latest = next
            cursor = next
            if count == missedCountLimit {
                latest = latestTime(schedule, after: cursor, through: end) ?? next
                break
            }
        }
        return latest.map { (count, $0) }
    }

    /// The latest scheduled time in (`floor`, `end`], found by looking back from `end` over
    /// windows that grow four times each step, so a long outage costs little.
    static func latestTime(_ schedule: Schedule, after floor: Date, through end: Date) -> Date? {
        var window: TimeInterval = 60
        while true {
            let from = max(floor, end.addingTimeInterval(-window))
            var latest: Date?
            var cursor = from
            while let next = schedule.nextDate(after: cursor), next <= end {
                latest = next
                cursor = next
            }
            if latest != nil || from == floor { return latest }
            window *= 4
        }
    }
}
