/// A signed span of time with nanosecond precision, as the rules language's `duration`.
///
/// Stored floored (`nanos` in 0 ..< 1e9, so -1.5 s is seconds -2, nanos 500 000 000); the
/// accessors report protobuf-style parts with a common sign. Range ±315 576 000 000 s
/// (about 10 000 years), as `google.protobuf.Duration`.
struct StorageDuration: Hashable, Comparable, Sendable {
    let seconds: Int64
    let nanos: Int32

    static let maxSeconds: Int64 = 315_576_000_000

    /// Normalises any seconds/nanos pair; nil when out of range.
    init?(seconds: Int64, nanos: Int64) {
        let (s, n) = Self.addParts(seconds, 0, 0, nanos)
        guard let s, s >= -Self.maxSeconds, s <= Self.maxSeconds else { return nil }
        self.seconds = s
        self.nanos = Int32(n)
    }

    static func < (a: StorageDuration, b: StorageDuration) -> Bool {
        (a.seconds, a.nanos) < (b.seconds, b.nanos)
    }

    var isNegative: Bool { seconds < 0 }

    /// Whole seconds, truncated toward zero (`duration.value(-1500, 'ms').seconds() == -1`).
    var truncatedSeconds: Int64 { seconds < 0 && nanos > 0 ? seconds + 1 : seconds }

    /// The sub-second part with the duration's sign.
    var signedNanos: Int64 { seconds < 0 && nanos > 0 ? Int64(nanos) - 1_000_000_000 : Int64(nanos) }

    var negated: StorageDuration? { StorageDuration(seconds: 0 &- seconds, nanos: -Int64(nanos)) }

    func adding(_ other: StorageDuration) -> StorageDuration? {
        let (s, n) = Self.addParts(seconds, Int64(nanos), other.seconds, Int64(other.nanos))
        guard let s else { return nil }
        return StorageDuration(seconds: s, nanos: n)
    }

    /// Adds two (seconds, nanos) pairs into a floored pair; nil seconds on overflow.
    static func addParts(_ s1: Int64, _ n1: Int64, _ s2: Int64, _ n2: Int64) -> (Int64?, Int64) {
        var n = n1 + n2
        var carry = n / 1_000_000_000
        n %= 1_000_000_000
        if n < 0 {
            n += 1_000_000_000
            carry -= 1
        }
        let (a, o1) = s1.addingReportingOverflow(s2)
        let (b, o2) = a.addingReportingOverflow(carry)
        return (o1 || o2 ? nil : b, n)
    }

    /// Nanoseconds per unit accepted by `duration.value(magnitude, unit)`.
    static func nanosPerUnit(_ unit: String) -> Int64? {
        switch unit {
        case "w": 604_800_000_000_000
        case "d": 86_400_000_000_000
        case "h": 3_600_000_000_000
        case "m": 60_000_000_000
        case "s": 1_000_000_000
        case "ms": 1_000_000
        case "ns": 1
        default: nil
        }
    }

    /// `magnitude` units; nil when out of range.
    init?(magnitude: Int64, unitNanos: Int64) {
        let perSecond: Int64 = 1_000_000_000
        if unitNanos >= perSecond {
            let (s, overflow) = magnitude.multipliedReportingOverflow(by: unitNanos / perSecond)
            guard !overflow else { return nil }
            self.init(seconds: s, nanos: 0)
        } else {
            let per = perSecond / unitNanos
            let (q, r) = magnitude.quotientAndRemainder(dividingBy: per)
            self.init(seconds: q, nanos: r * unitNanos)
        }
    }

    /// A duration from fractional units (`duration.value(1.5, 'h')`), rounded to nanoseconds.
    init?(fractional magnitude: Double, unitNanos: Int64) {
        let totalSeconds = magnitude * Double(unitNanos) / 1e9
        guard totalSeconds.isFinite, abs(totalSeconds) <= Double(Self.maxSeconds) else { return nil }
        let whole = totalSeconds.rounded(.down)
        let nanos = ((totalSeconds - whole) * 1e9).rounded()
        self.init(seconds: Int64(whole), nanos: Int64(nanos))
    }

    /// `12.5s`-style text for `string(duration)`.
    var text: String {
        let sign = isNegative ? "-" : ""
        let s = abs(truncatedSeconds)
        let n = abs(signedNanos)
        guard n != 0 else { return sign + String(s) + "s" }
        var frac = String(n)
        frac = String(repeating: "0", count: 9 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return sign + String(s) + "." + frac + "s"
    }
}
