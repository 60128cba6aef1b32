import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import Testing

/// How many writes `WriteLogMeasurement` makes: `HEARTH_MEASURE_WRITE_LOG`, nil when unset.
let measuredWrites = ProcessInfo.processInfo.environment["HEARTH_MEASURE_WRITE_LOG"].flatMap { Int($0) }

/// A measurement, not a check of speed: the time for N small sets through the namespace writer
/// (`Database` over `SQLiteStore`, durability full), one at a time and 16 at a time (group commit), with
/// the write log off and on, alternating, several rounds. It prints the medians and fails only when a
/// run loses writes or the log does not hold one row per write.
///
/// `HEARTH_MEASURE_WRITE_LOG=2000 swift test --skip-build --filter WriteLogMeasurement` (debug build).
@Suite("Write log: cost measurement", .enabled(if: measuredWrites != nil, "a measurement: set HEARTH_MEASURE_WRITE_LOG to a number of writes"))
struct WriteLogMeasurement {
    /// Seconds for `n` writes of `{"v":i,"s":"small"}` with `parallel` writers at a time.
    static func run(n: Int, parallel: Int, writeLog: Bool) async throws -> Double {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("writelog-cost-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(path: dir + "/m.sqlite", writeLog: writeLog)
        let db = try await Database(name: "m", store: store, observer: RecordingObserver(), clock: { 1_000 })
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for k in 0..<parallel {
                group.addTask {
                    for i in stride(from: k, to: n, by: parallel) {
                        let value = try Node.parseWrite(JSONValue.parse(#"{"v":\#(i),"s":"small"}"#))
                        _ = try await db.write(WriteRequest(path: Path("items/i\(i)"), operation: .set(value)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(try await store.snapshot { try $0.sequence() } == UInt64(n))
        try await store.close()
        let info = try #require(try WriteLog.info(ofLiveFile: dir + "/m.sqlite"))
        #expect(info.count == (writeLog ? Int64(n) : 0))
        return seconds
    }

    @Test func putSmallWithAndWithoutTheLog() async throws {
        let n = try #require(measuredWrites)
        for parallel in [1, 16] {
            var off: [Double] = []
            var on: [Double] = []
            for _ in 0..<5 {
                off.append(try await Self.run(n: n, parallel: parallel, writeLog: false))
                on.append(try await Self.run(n: n, parallel: parallel, writeLog: true))
            }
            let (a, b) = (off.sorted()[2], on.sorted()[2])
            print(String(format: "write log cost, %d writes, %d at a time: off %.3f s (%.0f/s), on %.3f s (%.0f/s), on/off %.3f",
                         n, parallel, a, Double(n) / a, b, Double(n) / b, b / a))
        }
    }
}
