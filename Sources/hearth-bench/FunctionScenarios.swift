import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Scenarios {
    // MARK: trigger-latency

    /// Writes to `/latency/{n}` at a steady 1,000 per second (40 paced connections, so that a slow answer does not hold the rate back) against
    /// `hearth-functions-fixture` (built next to the server binary), whose trigger on that path
    /// records how long after the commit began it started. The delay includes the commit's own
    /// fsync, so it overstates commit-to-start slightly.
    static func triggerLatency(_ c: BenchConfig) throws -> [MetricRow] {
        let name = Scenario.triggerLatency.rawValue
        let fixture = URL(fileURLWithPath: c.serverBinary).deletingLastPathComponent().appendingPathComponent("hearth-functions-fixture").path
        guard FileManager.default.isExecutableFile(atPath: fixture) else {
            throw BenchError("\(fixture) is missing: build it with --product hearth-functions-fixture")
        }
        let server = try HearthServerProcess(binary: fixture, scratch: c.scratch, label: "functions")
        defer { _ = server.stop() }
        try server.waitUntilReady()
        let rate = 1_000
        let lanes = 40
        let seconds = c.seconds
        let perLane = rate * seconds / lanes
        let interval = UInt64(1_000_000_000 / (rate / lanes))
        let failures = Atomic(0)
        let start = nowNanos() + 50_000_000
        let port = server.port
        // One thread per lane (concurrentPerform would run only as many lanes as there are cores).
        let group = DispatchGroup()
        for lane in 0..<lanes {
            group.enter()
            Thread {
                defer { group.leave() }
                runLane(lane)
            }.start()
        }
        @Sendable func runLane(_ lane: Int) {
            guard let conn = try? HTTPConnection(port: port, timeout: 10) else {
                failures.add(perLane)
                return
            }
            for i in 0..<perLane {
                // Paced, not closed-loop: each write has its slot; a slow answer does not push later writes back.
                let slot = start + UInt64(i) * interval + UInt64(lane) * interval / UInt64(lanes)
                let now = nowNanos()
                if slot > now { usleep(useconds_t((slot - now) / 1000)) }
                let body = Array("{\"n\":\(i)}".utf8)
                guard let r = try? conn.request("PUT", "/latency/l\(lane)-\(i).json", body: body), r.status == 200 else {
                    failures.add(1)
                    continue
                }
            }
        }
        group.wait()
        let wall = Double(nowNanos() - start) / 1e9
        let writes = perLane * lanes - failures.value
        // Wait until every committed write's trigger ran.
        let conn = try HTTPConnection(port: server.port, timeout: 10)
        var stats: [String: Any] = [:]
        let deadline = nowNanos() + 30_000_000_000
        repeat {
            stats = try conn.get("/fixture/latency").json() as? [String: Any] ?? [:]
            if (stats["count"] as? Int ?? 0) >= writes { break }
            usleep(50_000)
        } while nowNanos() < deadline
        let count = stats["count"] as? Int ?? 0
        func ms(_ key: String) -> Double { Double(stats[key] as? Int ?? 0) / 1000 }
        return [
            MetricRow(name, "writes committed per second", Double(writes) / wall, unit: "/s", target: .atLeast(950)),
            MetricRow(name, "triggers run / writes", Double(count) / Double(max(1, writes)), target: .equals(1)),
            MetricRow(name, "commit to function start p50", ms("p50"), unit: "ms"),
            MetricRow(name, "commit to function start p99", ms("p99"), unit: "ms", target: .atMost(20)),
            MetricRow(name, "commit to function start max", ms("max"), unit: "ms"),
        ]
    }
}

/// A counter shared by threads.
final class Atomic: @unchecked Sendable {
    private var count: Int
    private let lock = NSLock()

    init(_ value: Int) { count = value }

    func add(_ n: Int) { lock.withLock { count += n } }

    var value: Int { lock.withLock { count } }
}
