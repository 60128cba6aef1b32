/// How an HTTP client of an outside service calls it: how long a call may take, how often it is tried again,
/// and how big an answer may be.
public struct OutsideServiceOptions: Sendable, Hashable {
    /// The longest one call (``Geocoder/geocode(_:)``, say) takes, its retries and their pauses included;
    /// past it the call throws ``OutsideServiceError``. Default 10 s.
    public var timeout: Duration
    /// How many times a call is tried again after a connection error or an answer of 5xx or 429 (never after
    /// another 4xx). Default 2, so at most three attempts.
    public var retries: Int
    /// The pause before the first retry; it doubles for each further one (with some jitter), and a 429's
    /// `Retry-After` of a few seconds is honoured. Default 250 ms.
    public var backoff: Duration
    /// The largest answer body read, in bytes; a bigger one is an error. Default 1 MiB.
    public var maxResponseBytes: Int

    /// Options with the defaults above.
    public init(timeout: Duration = .seconds(10), retries: Int = 2, backoff: Duration = .milliseconds(250), maxResponseBytes: Int = 1 << 20) {
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.maxResponseBytes = max(1, maxResponseBytes)
    }
}
