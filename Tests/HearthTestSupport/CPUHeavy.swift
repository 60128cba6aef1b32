import Foundation
public import Testing

/// A trait for tests that compute for seconds without suspending: they run on one thread kept for them, outside
/// Swift's cooperative pool, and take turns on it.
///
/// Swift Testing runs tests in parallel as tasks on the cooperative pool, which has one thread per core. A test
/// that computes for seconds without suspending holds one of those threads; on a 2-core machine two such tests
/// stop every other test's tasks, live servers included, and their deadlines pass. Under this trait the test is
/// the same task (`#expect` and task-locals work as anywhere), but its synchronous work runs on the heavy-test
/// thread, so the CPU-heavy tests together never hold more than one core and never a pool thread.
///
/// ```swift
/// @Suite(.cpuHeavy) struct AdversarialInputTests {
///     @Test func descendingKeysParseInNLogN() throws { … }
/// }
/// ```
public struct CPUHeavyTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's scope is entered for the suite and again for each test; one preference is enough.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(HeavyTestThread.shared) { try await function() }
    }
}

extension Trait where Self == CPUHeavyTrait {
    /// Runs the test (or every test of the suite) on the heavy-test thread: see ``CPUHeavyTrait``.
    public static var cpuHeavy: Self { CPUHeavyTrait() }
}

/// A task executor with one thread of its own that runs the jobs given to it in order.
final class HeavyTestThread: TaskExecutor, @unchecked Sendable {
    static let shared = HeavyTestThread()

    // `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "cpu-heavy tests"
        // Unoptimised builds recurse with large frames; the tests that nest deepest need room.
        thread.stackSize = 16 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
