import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The realtime scenarios' own `hearth serve --dev` (a fresh one, so the memory figures start from an idle server that
/// ran nothing else) and its WebSocket clients, kept from realtime-connections to realtime-fanout.
final class RealtimeRun {
    static let namespace = "realtime"
    let server: HearthServerProcess
    let fleet: RealtimeFleet
    private(set) var finished = false

    init(server: HearthServerProcess, fleet: RealtimeFleet) {
        self.server = server
        self.fleet = fleet
    }

    /// Starts the server and seeds `/shared` with `{"seq":-1}` (so a listen's initial data is not a delivery).
    static func startServer(_ c: BenchConfig) throws -> HearthServerProcess {
        let server = try HearthServerProcess(binary: c.serverBinary, scratch: c.scratch, label: "realtime")
        do {
            try server.waitUntilReady()
            log("realtime server pid \(server.pid) on port \(server.port)")
            try HTTPConnection(port: server.port).expect(
                200, "PUT", "/shared.json?ns=\(namespace)", body: #"{"seq":-1}"#, "seeding /shared")
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Closes the clients, checks that the server let go of their sockets, stops the server; rows for `scenario`.
    func finish(_ scenario: String) -> [MetricRow] {
        guard !finished else { return [] }
        finished = true
        var rows: [MetricRow] = []
        let before = fleet.collector.counts
        let socketsOpen = server.openSockets
        fleet.shutdown()
        var socketsAfter = server.openSockets
        let deadline = nowNanos() + 3_000_000_000
        while (socketsAfter ?? 0) > 2, nowNanos() < deadline {
            usleep(100_000)
            socketsAfter = server.openSockets
        }
        let health = Self.health(port: server.port)
        rows.append(
            MetricRow(
                scenario, "server sockets still open ≤3 s after the clients closed", socketsAfter.map(Double.init),
                target: .atMost(2),
                note: "\(socketsOpen.map(String.init) ?? "?") before closing (listener + clients); the listening socket and a "
                    + "keep-alive REST connection may remain; health reports \(health?.connections.map(String.init) ?? "?") "
                    + "realtime connections after closing; \(before.closedEarly) clients were closed early by the server"))
        rows.append(MetricRow(scenario, "server RSS after the clients closed", server.rssMB, unit: "MB"))
        if let peak = server.peakRSSMB { rows.append(MetricRow(scenario, "realtime server peak RSS (VmHWM)", peak, unit: "MB")) }
        let errors = server.errorLines()
        let exit = server.stop()
        rows.append(
            MetricRow(
                scenario, "realtime server exited cleanly on SIGTERM", exit == "exit 0" ? 1 : 0, target: .equals(1),
                note: exit == "exit 0" ? (errors.isEmpty ? nil : "log errors: \(errors.prefix(3))") : "\(exit); log errors: \(errors.prefix(3))"))
        return rows
    }

    /// `GET /.well-known/hearth/health`: the server's count of open realtime connections and SSE listeners.
    static func health(port: Int) -> (connections: Int?, listeners: Int?)? {
        guard let conn = try? HTTPConnection(port: port, timeout: 10), let r = try? conn.get("/.well-known/hearth/health"),
            r.status == 200, let obj = (try? r.json()) as? [String: Any]
        else { return nil }
        return (obj["connections"] as? Int, obj["listeners"] as? Int)
    }

    /// The server's soft open-file limit (from /proc/PID/limits).
    var serverOpenFileLimit: String {
        guard let text = try? String(contentsOfFile: "/proc/\(server.pid)/limits", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return "?" }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.map(String.init) ?? "?"
    }
}

/// CPU use over a window: the server, this process and everything else on the machine.
struct CPUWindow {
    let wall0 = nowNanos()
    let machine0 = machineBusyCPUSeconds()
    let server0: Double?
    let own0 = cpuSeconds(children: false)
    let load0 = loadAverage()

    init(server: HearthServerProcess) { server0 = server.cpuSeconds }

    /// (server cores, bench cores, other processes' cores, seconds, load average before → now).
    func end(server: HearthServerProcess) -> (server: Double?, bench: Double, others: Double?, seconds: Double, load: String) {
        let wall = Double(nowNanos() - wall0) / 1e9
        let serverCores = server0.flatMap { a in server.cpuSeconds.map { ($0 - a) / wall } }
        let bench = (cpuSeconds(children: false) - own0) / wall
        var others: Double?
        if let m0 = machine0, let m1 = machineBusyCPUSeconds(), let s = serverCores {
            others = max(0, (m1 - m0) / wall - s - bench)
        }
        return (serverCores, bench, others, wall, "\(load0) → \(loadAverage())")
    }
}

extension Scenarios {
    // MARK: realtime-connections

    /// realtime-connections: a fresh server; N WebSocket clients (protocol v5) connect and authenticate with `gauth`
    /// (batches of 100), then each listens on `/conns/<i>` and `/shared` (batches of 100). The server's RSS is read
    /// before, after the authentication and after the listens. The clients stay open for realtime-fanout.
    static func realtimeConnections(_ c: BenchConfig) throws -> (rows: [MetricRow], run: RealtimeRun) {
        let name = "realtime-connections"
        let server = try RealtimeRun.startServer(c)
        let fleet = RealtimeFleet(
            port: server.port, namespace: RealtimeRun.namespace, clients: c.realtimeConnections, writes: c.realtimeWrites,
            threads: c.loadThreads)
        let run = RealtimeRun(server: server, fleet: fleet)
        usleep(1_000_000)
        let rssBefore = server.statusKB("VmRSS")
        let cpu = CPUWindow(server: server)
        let connectSeconds = fleet.connectAll()
        usleep(1_000_000)
        let rssAuthed = server.statusKB("VmRSS")
        let afterConnect = fleet.collector.counts
        let listenSeconds = fleet.listenAll()
        usleep(1_000_000)
        let rssAfter = server.statusKB("VmRSS")
        let load = cpu.end(server: server)
        let counts = fleet.collector.counts
        let snapshot = fleet.collector.snapshot
        let health = RealtimeRun.health(port: server.port)
        let n = c.realtimeConnections
        let connected = counts.authed
        func kb(_ a: Int?, _ b: Int?) -> Double? {
            guard let a, let b, connected > 0 else { return nil }
            return Double(b - a) / Double(connected)
        }
        let perConnection = kb(rssBefore, rssAfter)
        let mb = { (k: Int?) in k.map { Double($0) / 1024 } }
        let rows = [
            MetricRow(
                name, "clients connected and authenticated", Double(connected), target: .equals(Double(n)),
                note: "WebSocket upgrade + handshake + gauth ok, batches of 100, took \(formatNumber(connectSeconds)) s; "
                    + "bench open-file limit \(currentOpenFileLimit()), server's \(run.serverOpenFileLimit)"),
            MetricRow(
                name, "failed clients", Double(n - connected), target: .equals(0),
                note: snapshot.errors.isEmpty && fleet.connectErrors.isEmpty
                    ? nil
                    : "\(fleet.connectFailures) connect errors; first problems: \((fleet.connectErrors + snapshot.errors).prefix(5))"),
            MetricRow(
                name, "listens acknowledged (own path + /shared)", Double(counts.listensOK), target: .equals(Double(2 * connected)),
                note: "\(counts.listenFailures) refused; sent in batches of 100 clients, took \(formatNumber(listenSeconds)) s"),
            MetricRow(
                name, "realtime connections the server reports", health?.connections.map(Double.init),
                target: .equals(Double(connected)), note: "GET /.well-known/hearth/health after the listens"),
            MetricRow(name, "server RSS before connecting", mb(rssBefore), unit: "MB"),
            MetricRow(
                name, "server RSS after connect + gauth", mb(rssAuthed), unit: "MB",
                note: kb(rssBefore, rssAuthed).map { "\(formatNumber($0)) KB per connection without listens" }),
            MetricRow(
                name, "server RSS after all listens", mb(rssAfter), unit: "MB",
                note: kb(rssAuthed, rssAfter).map { "\(formatNumber($0)) KB per connection for its 2 listens" }),
            MetricRow(
                name, "server memory per connection (2 listens)", perConnection, unit: "KB", target: .atMost(16),
                note: "(RSS after listens − RSS before) / \(connected) connections, each RSS read 1 s after its phase"),
            MetricRow(name, "server threads / open sockets", server.threads.map(Double.init),
                      note: "open sockets \(server.openSockets.map(String.init) ?? "?")"),
            MetricRow(
                name, "CPU used by other processes (avg)", load.others, unit: "cores",
                note: "server averaged \(formatNumber(load.server ?? .nan)) cores, bench \(formatNumber(load.bench)) cores over "
                    + "\(formatNumber(load.seconds)) s; load average \(load.load); \(afterConnect.closedEarly) + "
                    + "\(counts.closedEarly - afterConnect.closedEarly) clients closed by the server during connect/listen"),
        ]
        return (rows, run)
    }

    // MARK: realtime-fanout

    /// realtime-fanout: with every client listening on `/shared` (realtime-connections' clients, or new ones), PUTs
    /// `{"seq":k}` to `/shared` over REST as admin W times, `intervalMs` apart, and measures each client's push
    /// against the moment just before the PUT was sent. Then closes the clients and stops the server.
    static func realtimeFanout(_ c: BenchConfig, run existing: RealtimeRun?) throws -> [MetricRow] {
        let name = "realtime-fanout"
        var rows: [MetricRow] = []
        let run: RealtimeRun
        if let existing, !existing.finished {
            run = existing
        } else {
            let server = try RealtimeRun.startServer(c)
            let fleet = RealtimeFleet(
                port: server.port, namespace: RealtimeRun.namespace, clients: c.realtimeConnections,
                writes: c.realtimeWrites, threads: c.loadThreads)
            run = RealtimeRun(server: server, fleet: fleet)
            let setup = fleet.connectAll() + fleet.listenAll()
            rows.append(
                MetricRow(
                    name, "setup (realtime-connections did not run)", setup, unit: "s",
                    note: "\(fleet.collector.counts.authed) clients authenticated, \(fleet.collector.counts.listensOK) listens ok"))
        }
        defer { _ = run.finish(name) }
        let server = run.server
        let collector = run.fleet.collector
        let writes = c.realtimeWrites
        let listening = collector.state.withLock { s in
            (0..<collector.clients).filter { s.sharedListen[$0] == 1 && !s.closed[$0] }
        }
        guard !listening.isEmpty else { throw BenchError("no client is listening on /shared") }
        let closedBefore = collector.counts.closedEarly
        usleep(500_000)

        let writer = try HTTPConnection(port: server.port, timeout: 30)
        var sentAt = [UInt64](repeating: 0, count: writes)
        var ack = Samples()
        let cpu = CPUWindow(server: server)
        let start = nowNanos()
        for k in 0..<writes {
            sleep(until: start + UInt64(k) * UInt64(c.realtimeWriteIntervalMs) * 1_000_000)
            let body = Array(#"{"seq":\#(k)}"#.utf8)
            let t = nowNanos()
            sentAt[k] = t
            let r = try writer.request("PUT", "/shared.json?ns=\(RealtimeRun.namespace)", body: body)
            ack.add(nowNanos() - t)
            guard r.status == 200 else { throw BenchError("write \(k): HTTP \(r.status) \(r.text.prefix(200))") }
        }
        // Wait (bounded) for the stragglers, then a little longer for duplicates.
        let expected = listening.count * writes
        let waitDeadline = nowNanos() + 10_000_000_000
        while collector.counts.received < expected, nowNanos() < waitDeadline { usleep(10_000) }
        let load = cpu.end(server: server)
        usleep(300_000)

        let snapshot = collector.snapshot
        var delivery = Samples()
        var missed = 0
        var lastPerWrite = [UInt64](repeating: 0, count: writes)
        var missedPerWrite = [Int](repeating: 0, count: writes)
        for i in listening {
            for k in 0..<writes {
                let at = snapshot.received[i * writes + k]
                if at == 0 {
                    missed += 1
                    missedPerWrite[k] += 1
                } else {
                    let latency = at > sentAt[k] ? at - sentAt[k] : 0
                    delivery.add(latency)
                    lastPerWrite[k] = max(lastPerWrite[k], latency)
                }
            }
        }
        var allReceived = Samples(lastPerWrite)
        let closedDuring = snapshot.closedEarly - closedBefore
        rows += [
            MetricRow(
                name, "clients listening on /shared", Double(listening.count), target: .equals(Double(c.realtimeConnections)),
                note: "\(writes) PUTs of {\"seq\":k} to /shared over REST, \(c.realtimeWriteIntervalMs) ms apart"),
            MetricRow(
                name, "delivery latency p50", delivery.percentileMs(50), unit: "ms",
                note: "push received − just before the PUT was sent; \(delivery.count)/\(expected) delivered"),
            MetricRow(name, "delivery latency p90", delivery.percentileMs(90), unit: "ms"),
            MetricRow(name, "delivery latency p99", delivery.percentileMs(99), unit: "ms", target: .atMost(100)),
            MetricRow(name, "delivery latency max", delivery.percentileMs(100), unit: "ms"),
            MetricRow(
                name, "time until every client had a write (median of writes)", allReceived.percentileMs(50), unit: "ms",
                note: "per write: " + lastPerWrite.map { formatNumber(Double($0) / 1e6) }.joined(separator: ", ") + " ms"),
            MetricRow(
                name, "missed deliveries", Double(missed), target: .equals(0),
                note: missed == 0 ? nil : "per write: \(missedPerWrite)"),
            MetricRow(name, "duplicate deliveries", Double(snapshot.duplicates), target: .equals(0)),
            MetricRow(
                name, "clients closed by the server during the writes", Double(closedDuring), target: .equals(0),
                note: snapshot.unparsed == 0 && snapshot.errors.isEmpty
                    ? nil : "unexpected messages: \(snapshot.unparsed); problems: \(snapshot.errors.prefix(5))"),
            MetricRow(name, "writer PUT ack p50", ack.percentileMs(50), unit: "ms", note: "max \(formatNumber(ack.percentileMs(100) ?? .nan)) ms"),
            MetricRow(
                name, "server CPU during the writes", load.server, unit: "cores",
                note: "bench (clients) \(formatNumber(load.bench)) cores over \(formatNumber(load.seconds)) s"),
            MetricRow(
                name, "CPU used by other processes (avg)", load.others, unit: "cores",
                note: "should be ~0 for a clean measurement; load average \(load.load); \(snapshot.pingsAnswered) WebSocket pings answered so far"),
        ]
        rows += run.finish(name)
        return rows
    }
}
