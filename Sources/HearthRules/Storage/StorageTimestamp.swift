import HearthCore

/// A UTC instant with nanosecond precision between 0001-01-01 and 9999-12-31, as the rules
/// language's `timestamp`.
struct StorageTimestamp: Hashable, Comparable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    let seconds: Int64
    /// 0 ..< 1_000_000_000.
    let nanos: Int32

    static let minSeconds: Int64 = -62_135_596_800  // 0001-01-01T00:00:00Z
    static let maxSeconds: Int64 = 253_402_300_799  // 9999-12-31T23:59:59Z

    init?(seconds: Int64, nanos: Int32 = 0) {
        guard nanos >= 0, nanos < 1_000_000_000, seconds >= Self.minSeconds, seconds <= Self.maxSeconds else { return nil }
        self.seconds = seconds
        self.nanos = nanos
    }

    init?(millis: Int64) {
        let (s, ms) = millis.quotientAndRemainder(dividingBy: 1000)
        let floorS = ms < 0 ? s - 1 : s
        let floorMs = ms < 0 ? ms + 1000 : ms
        self.init(seconds: floorS, nanos: Int32(floorMs) * 1_000_000)
    }

    /// Midnight UTC of a calendar date; nil for an invalid date or one out of range.
    init?(year: Int64, month: Int64, day: Int64) {
        guard (1...9999).contains(year), (1...12).contains(month),
            day >= 1, day <= CivilDate.daysInMonth(year: year, month: month)
        else { return nil }
        self.init(seconds: CivilDate.days(year: year, month: month, day: day) * 86_400)
    }

    static func < (a: StorageTimestamp, b: StorageTimestamp) -> Bool {
        (a.seconds, a.nanos) < (b.seconds, b.nanos)
    }

    /// Whole days since the epoch (floor) and the second within that day.
    var dayAndSecond: (day: Int64, second: Int64) {
        let (q, r) = seconds.quotientAndRemainder(dividingBy: 86_400)
        return r < 0 ? (q - 1, r + 86_400) : (q, r)
    }

    var civil: (year: Int64, month: Int64, day: Int64) { CivilDate.civil(days: dayAndSecond.day) }

    /// Milliseconds since the epoch (floor).
    var millis: Int64 { seconds * 1000 + Int64(nanos / 1_000_000) }

    func adding(_ d: StorageDuration) -> StorageTimestamp? {
        let (s, n) = StorageDuration.addParts(seconds, Int64(nanos), d.seconds, Int64(d.nanos))
        guard let s else { return nil }
        return StorageTimestamp(seconds: s, nanos: Int32(n))
    }

    /// RFC 3339 in UTC with as many fractional digits as needed (none, 3, 6 or 9).
    var rfc3339: String {
        let (y, m, d) = civil
        let second = dayAndSecond.second
        var out = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(second / 3600, 2) + ":" + pad(second / 60 % 60, 2) + ":" + pad(second % 60, 2)
        if nanos != 0 {
            var digits = pad(Int64(nanos), 9)
            while digits.count > 3, digits.hasSuffix("000") { digits.removeLast(3) }
            out += "." + digits
        }
        return out + "Z"
    }

    private func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
