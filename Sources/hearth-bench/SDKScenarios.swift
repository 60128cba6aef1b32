import Foundation
import Hearth
import HearthCore

/// sdk-observe: the Swift SDK (`import Hearth`) in this process, connected to the server over its WebSocket, observing
/// a list of N children (a chat room, a feed). One REST write at a time appends a child; the time until the observer
/// has it is the push over the wire plus the SDK's work on every change: the view recomputed over the whole list and
/// compared with the last one (and diffed into child events). The bench's CPU during the writes, per write, is
/// mostly that client work.
extension Scenarios {
    static func sdkObserve(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "sdk-observe"
        let admin = try HTTPConnection(port: server.port)
        try admin.expect(200, "PUT", "/.settings/rules.json?ns=sdk", body: #"{"rules":{".read":true,".write":true}}"#, "rules")
        let sizes = c.quick ? [100, 2_000] : [100, 2_000, 10_000]
        let writes = c.quick ? 20 : 50
        var rows: [MetricRow] = []
        for n in sizes {
            let list = "lists/n\(n)"
            var seeded = 0
            while seeded < n {
                let end = min(n, seeded + 5_000)
                let members = (seeded..<end).map { i in
                    "\"m\(String(format: "%07d", i))\":{\"text\":\"message \(i)\",\"by\":\"u1\",\"ts\":\(i)}"
                }
                try admin.expect(204, "PATCH", "/\(list).json?ns=sdk&print=silent", body: "{" + members.joined(separator: ",") + "}", "seed")
                seeded = end
            }
            for kind in ["value", "child events"] {
                let seen = Locked<[Int: UInt64]>([:])
                let initial = Locked<Int?>(nil)
                let app = HearthApp(
                    name: "bench-\(n)-\(kind)",
                    options: HearthOptions(
                        serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, projectID: "demo", databaseNamespace: "sdk"))
                let ref = app.database.reference(list)
                let observer = Task {
                    if kind == "value" {
                        var next = 0
                        for try await snapshot in ref.snapshots() {
                            if initial.withLock({ $0 }) == nil { initial.withLock { $0 = snapshot.childrenCount } }
                            while snapshot.hasChild(writeKey(next)) {
                                let k = next
                                seen.withLock { $0[k] = nowNanos() }
                                next += 1
                            }
                        }
                    } else {
                        var count = 0
                        for try await event in ref.childEvents() {
                            guard case .added(let snapshot, _) = event, let key = snapshot.key else { continue }
                            if key.hasPrefix("w"), let k = Int(key.dropFirst()) {
                                seen.withLock { $0[k] = nowNanos() }
                            } else {
                                count += 1
                                if count == n { initial.withLock { $0 = count } }
                            }
                        }
                    }
                }
                defer {
                    observer.cancel()
                    _ = try? runBlocking { await app.close() }
                }
                let deadline = nowNanos() + 60_000_000_000
                while initial.withLock({ $0 }) == nil, nowNanos() < deadline { usleep(1_000) }
                guard initial.withLock({ $0 }) == n else {
                    throw BenchError("\(name): the observer of \(n) children saw \(initial.withLock { $0 }.map(String.init) ?? "nothing")")
                }
                usleep(200_000)
                var latency = Samples()
                let cpu0 = cpuSeconds(children: false)
                let wall0 = nowNanos()
                var missed = 0
                for k in 0..<writes {
                    let sent = nowNanos()
                    try admin.expect(
                        204, "PUT", "/\(list)/\(writeKey(k)).json?ns=sdk&print=silent", body: "{\"text\":\"new \(k)\",\"by\":\"u2\",\"ts\":\(n + k)}",
                        "write")
                    let limit = nowNanos() + 10_000_000_000
                    var at: UInt64?
                    while at == nil, nowNanos() < limit {
                        at = seen.withLock { $0[k] }
                        if at == nil { usleep(100) }
                    }
                    if let at { latency.add(at - sent) } else { missed += 1 }
                }
                let cpu = cpuSeconds(children: false) - cpu0
                let wall = Double(nowNanos() - wall0) / 1e9
                // Clean up for the next kind: the written children go, so both observers start from N.
                for k in 0..<writes { _ = try? admin.request("DELETE", "/\(list)/\(writeKey(k)).json?ns=sdk") }
                let label = "\(n) children, \(kind)"
                rows.append(
                    MetricRow(
                        name, "\(label): write → observer p50 / p99", latency.percentileMs(50), unit: "ms",
                        note: "p99 \(latency.percentileMs(99).map(formatNumber) ?? "–") ms, max \(latency.percentileMs(100).map(formatNumber) ?? "–") ms; \(writes) writes one at a time; missed \(missed)"))
                rows.append(
                    MetricRow(
                        name, "\(label): bench CPU per write", cpu / Double(writes) * 1000, unit: "ms",
                        note: "\(formatNumber(cpu / wall)) cores over \(formatNumber(wall)) s (SDK + the REST writer)"))
            }
        }
        return rows
    }

    private static func writeKey(_ k: Int) -> String { "w\(String(format: "%05d", k))" }
}
