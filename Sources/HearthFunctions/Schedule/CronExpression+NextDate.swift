public import Foundation

extension CronExpression {
    /// The first time strictly after `date` at which the expression fires, reading the fields
    /// as wall-clock time in `timeZone`; nil only if nothing matches within 400 years (which a
    /// parsed expression cannot do) or `date` is not a finite time.
    ///
    /// Daylight-saving time, decided by whether the hour field selects all 24 hours:
    /// - A job that runs **every hour** (`0 * * * *`, `*/15 * * * *`) follows real time: it fires
    ///   at each matching wall time that exists, so a wall time that occurs twice when clocks go
    ///   back fires twice (once per real hour), and one that does not exist when clocks go
    ///   forward is skipped (that hour never happened). `0 * * * *` fires 23 times on the
    ///   spring-forward day and 25 times on the fall-back day.
    /// - **Any other** job follows the calendar: a wall time that does not exist fires once at the
    ///   first instant after the gap (`30 2 * * *` in Europe/Berlin on 2026-03-29 fires at 03:00
    ///   CEST; several times in one gap still fire once), and a wall time that occurs twice fires
    ///   only at its first occurrence.
    ///
    /// The search skips by field (month, then day, then hour, then minute) and by the time zone's
    /// offset changes, so a leap-day schedule finds the next February 29 in a few hundred steps.
    public func nextDate(after date: Date, in timeZone: TimeZone) -> Date? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
        let earliest = Int(seconds.rounded(.down)) + 1
        // Start a little before `date`, so that a change of offset just before it is known: a
        // wall time repeated after it was already due before it.
        var start = earliest - 2 * WallClock.secondsPerDay
        var offset = timeZone.offset(at: start)
        var previousOffset = offset
        var afterChange = false
        // Each round is one stretch of constant offset, in which wall time and real time move together.
        for _ in 0..<2_000 {
            let end = timeZone.offsetChange(after: start)
            if afterChange, offset > previousOffset, !runsEveryHour, start >= earliest,
                firstMatch(from: start + previousOffset, before: start + offset) != nil
            {
                return Date(timeIntervalSince1970: Double(start))  // a wall time in the gap: first instant after it
            }
            var from = max(start, earliest) + offset
            if afterChange, offset < previousOffset, !runsEveryHour {
                from = max(from, start + previousOffset)  // wall times before this were already due once
            }
            if let local = firstMatch(from: from, before: end.map { $0 + offset }) {
                return Date(timeIntervalSince1970: Double(local - offset))
            }
            guard let end else { return nil }
            previousOffset = offset
            offset = timeZone.offset(at: end)
            start = end
            afterChange = true
        }
        return nil
    }

    /// The first matching wall time (in local seconds) at or after `local` and before `end`.
    func firstMatch(from local: Int, before end: Int?) -> Int? {
        let local = WallClock.floor(local + 59, to: 60)
        if let end, local >= end { return nil }
        var days = WallClock.floor(local, to: WallClock.secondsPerDay) / WallClock.secondsPerDay
        var (year, month, day) = WallClock.date(days: days)
        var hour = (local - days * WallClock.secondsPerDay) / 3600
        var minute = (local % 3600 + 3600) % 3600 / 60
        // The Gregorian calendar repeats every 400 years: nothing by then means never.
        let lastYear = year + 401
        while year <= lastYear {
            if let end, days * WallClock.secondsPerDay >= end { return nil }
            if months & (1 << UInt64(month)) == 0 || day > WallClock.daysInMonth(year: year, month: month) {
                if let next = months.firstSetBit(from: month + 1) {
                    month = next
                } else {
                    year += 1
                    month = months.firstSetBit(from: 1) ?? 1
                }
                (day, hour, minute) = (1, 0, 0)
                days = WallClock.days(year: year, month: month, day: 1)
                continue
            }
            guard matchesDay(day, weekday: WallClock.weekday(days: days)), let h = hours.firstSetBit(from: hour) else {
                (day, hour, minute) = (day + 1, 0, 0)
                days += 1
                continue
            }
            if h != hour { (hour, minute) = (h, 0) }
            guard let m = minutes.firstSetBit(from: minute) else {
                (hour, minute) = (hour + 1, 0)
                continue
            }
            let result = days * WallClock.secondsPerDay + hour * 3600 + m * 60
            if let end, result >= end { return nil }
            return result
        }
        return nil
    }
}

extension TimeZone {
    /// Seconds east of UTC at an instant given in seconds since 1970.
    fileprivate func offset(at seconds: Int) -> Int {
        secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// The next instant after `seconds` at which the offset may change, or nil if it never does.
    fileprivate func offsetChange(after seconds: Int) -> Int? {
        guard let next = nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(seconds))) else {
            return nil
        }
        let instant = Int(next.timeIntervalSince1970.rounded())
        return instant > seconds ? instant : nil
    }
}
