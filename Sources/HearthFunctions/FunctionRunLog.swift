import Foundation
import Synchronization

/// One invocation of a function on this node, as the console's "recent runs" table shows it.
package struct FunctionRun: Sendable, Hashable {
    /// How a run ended.
    package enum Outcome: String, Sendable, Hashable {
        /// The function returned.
        case ok
        /// It threw (a callable, HTTP function or scheduled job: nothing retries it).
        case error
        /// A trigger threw; its event is tried again later.
        case retry
        /// A trigger threw for the last time; its event is now a dead letter.
        case dead
    }

    /// The function's registered name.
    package var function: String
    /// What started it: an outbox event's id (`db:demo/12`), `POST /functions/NAME`, a route, or a schedule's tick.
    package var trigger: String
    /// The attempt number of a trigger's event (1 = the first run); nil for other kinds.
    package var attempt: Int?
    /// Milliseconds since 1970 when it started.
    package var startedAt: Int64
    /// How long it ran, in milliseconds (fractions kept: most runs take well under one).
    package var durationMs: Double
    /// How it ended.
    package var outcome: Outcome
    /// What it threw, when it did.
    package var error: String?

    /// A run as recorded.
    package init(
        function: String, trigger: String, attempt: Int? = nil, startedAt: Int64, durationMs: Double, outcome: Outcome, error: String? = nil
    ) {
        self.function = function
        self.trigger = trigger
        self.attempt = attempt
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.outcome = outcome
        self.error = error
    }
}

/// The last ``capacity`` function runs on this node, in memory only (gone on restart, and each node of a cluster
/// keeps its own): what the console shows as recent runs.
package final class FunctionRunLog: Sendable {
    /// How many runs are kept; older ones are dropped.
    package let capacity: Int
    private let items = Mutex<[FunctionRun]>([])

    /// An empty log keeping up to `capacity` runs.
    package init(capacity: Int = 200) {
        self.capacity = max(1, capacity)
    }

    /// Adds a finished run, dropping the oldest beyond ``capacity``. Error texts are cut to 2000 characters.
    package func record(_ run: FunctionRun) {
        var run = run
        if let error = run.error, error.count > 2000 { run.error = String(error.prefix(2000)) + "…" }
        items.withLock { list in
            list.append(run)
            if list.count > capacity { list.removeFirst(list.count - capacity) }
        }
    }

    /// The kept runs, newest first.
    package var recent: [FunctionRun] { items.withLock { $0.reversed() } }

    /// When the latest kept run of `function` started.
    package func lastStart(of function: String) -> Int64? {
        items.withLock { list in list.last { $0.function == function }?.startedAt }
    }

    /// Runs `body`, timing it, and records the run with the outcome and error it returns; returns what `body` returned
    /// and the run recorded (none when `body`'s outcome is nil).
    package func timed<T>(
        _ function: String, trigger: String, attempt: Int? = nil, clock: () -> Int64,
        _ body: () async -> (T, FunctionRun.Outcome?, String?)
    ) async -> (T, FunctionRun?) {
        let startedAt = clock()
        let start = ContinuousClock.now
        let (value, outcome, error) = await body()
        let elapsed = ContinuousClock.now - start
        let millis = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        // A nil outcome (a run interrupted by shutdown) is not a run worth showing.
        guard let outcome else { return (value, nil) }
        let run = FunctionRun(
            function: function, trigger: trigger, attempt: attempt, startedAt: startedAt, durationMs: millis, outcome: outcome, error: error)
        record(run)
        return (value, run)
    }
}
