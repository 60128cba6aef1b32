import Synchronization

/// How many database writes this process has committed, over every namespace (REST, realtime, functions and
/// transactions all pass through ``Database/write(_:)``): what the console's overview turns into writes per second.
/// One relaxed atomic add per commit.
public enum CommittedWrites {
    private static let counter = Atomic<Int>(0)

    /// Writes committed since the process started (a write that changed nothing is not counted).
    public static var total: Int { counter.load(ordering: .relaxed) }

    /// Counts `n` committed writes.
    static func add(_ n: Int) { counter.add(n, ordering: .relaxed) }
}
