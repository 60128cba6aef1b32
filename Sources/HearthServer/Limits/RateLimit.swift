/// A request rate: `requests` per `per` seconds, with bursts of up to `burst` requests (a token bucket that holds
/// `burst` tokens and gains `requests / per` of them each second). Zero requests means unlimited.
///
/// Written like `100/s`, `6000/m`, `50000/h`, with an optional burst: `100/s,burst=200`. Without one the burst is
/// one second's worth of requests (at least 1), so `6000/m` allows 100 at once and then 100 a second.
///
/// ```swift
/// let limit = try RateLimit(parsing: "100/s,burst=200")
/// limit.perSecond  // 100
/// limit.burst      // 200
/// ```
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Requests allowed per `seconds` (0: unlimited).
    public var requests: Int
    /// The period `requests` are counted over, in seconds (1, 60 or 3600).
    public var seconds: Int
    /// The most requests allowed at once after a quiet period.
    public var burst: Int

    /// No limit.
    public static let unlimited = RateLimit(requests: 0, seconds: 1)

    /// `requests` per `seconds`, with bursts of `burst` (default: one second's worth, at least 1).
    public init(requests: Int, seconds: Int = 1, burst: Int? = nil) {
        self.requests = max(0, requests)
        self.seconds = max(1, seconds)
        // A burst under 1 would refuse every request for ever.
        self.burst = max(1, burst ?? Int((Double(max(0, requests)) / Double(max(1, seconds))).rounded(.up)))
    }

    /// Whether this limits anything.
    public var isLimited: Bool { requests > 0 }

    /// Tokens gained per second.
    public var perSecond: Double { Double(requests) / Double(seconds) }

    /// A text that is not a rate.
    public struct InvalidRate: Error, CustomStringConvertible {
        /// The text as given.
        public var text: String
        /// What is wrong with it.
        public var description: String {
            "\"\(text)\" is not a rate: write requests per second, minute or hour (100/s, 6000/m, 50000/h), "
                + "optionally with a burst (100/s,burst=200); 0 turns the limit off"
        }
    }

    /// Parses `100/s`, `6000/m`, `50000/h`, `100/s,burst=200` or `0` (unlimited).
    public init(parsing text: String) throws(InvalidRate) {
        let trimmed = text.filter { $0 != " " }
        if trimmed == "0" || trimmed == "off" {
            self = .unlimited
            return
        }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw InvalidRate(text: text) }
        let rate = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard rate.count == 2, rate[0].allSatisfy(\.isASCII), let requests = Int(rate[0]), requests >= 0, requests <= 1_000_000_000 else {
            throw InvalidRate(text: text)
        }
        let seconds: Int
        switch rate[1].lowercased() {
        case "s", "sec", "second": seconds = 1
        case "m", "min", "minute": seconds = 60
        case "h", "hour": seconds = 3600
        default: throw InvalidRate(text: text)
        }
        var burst: Int?
        if parts.count == 2 {
            let option = parts[1].split(separator: "=", omittingEmptySubsequences: false)
            guard option.count == 2, option[0].lowercased() == "burst", let b = Int(option[1]), b >= 1, b <= 1_000_000_000 else {
                throw InvalidRate(text: text)
            }
            burst = b
        }
        self.init(requests: requests, seconds: seconds, burst: burst)
        if requests == 0 { self = .unlimited }
    }

    /// The rate as it is written (`100/s,burst=200`; `0` when unlimited).
    public var description: String {
        guard isLimited else { return "0" }
        let unit = seconds == 1 ? "s" : seconds == 60 ? "m" : seconds == 3600 ? "h" : "\(seconds)s"
        return "\(requests)/\(unit),burst=\(burst)"
    }
}
