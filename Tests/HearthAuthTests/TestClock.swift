import Synchronization

/// An auth clock the test moves (milliseconds since 1970, from a fixed start).
final class TestClock: Sendable {
    let millis = Mutex<Int64>(1_700_000_000_000)
    func advance(seconds: Int64) { millis.withLock { $0 += seconds * 1000 } }
    var now: Int64 { millis.withLock { $0 } }
}
