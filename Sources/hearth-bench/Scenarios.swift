import Foundation

/// Settings shared by the scenarios.
struct BenchConfig {
    var serverBinary: String
    var scratch: String
    var quick: Bool
    var seconds: Int
    var connections: Int
    var loadThreads: Int
    var wrk: String?
    var putMode: LoadRequest
    var items: Int
    var queries: Int
    var listeners: Int
    var writes: Int
    var writeIntervalMs: Int
    var startupRuns: Int
    /// auth-verify: distinct ID tokens minted in-process.
    var authTokens: Int
    /// auth-refresh: users (refresh tokens) cycled by the refresh load.
    var refreshUsers: Int
    /// auth-signin: users, concurrent sign-in clients, and connections of the read load beside them.
    var signinUsers: Int
    var signinClients: Int
    var signinReadConnections: Int
    /// auth-signin: milliseconds a sign-in client waits before each request (0: none).
    var signinDelayMs: Int
    /// The shared server's `--password-cost` (nil: its default, 14).
    var passwordCost: Int?
    /// With `--nodes`: every node's port, the shared server's first. put-small, get-small and put-rules spread their
    /// connections over them (in-process generator), and the SSE fan-outs their listeners; writes go to the first.
    var nodePorts: [Int] = []
    /// realtime-connections / realtime-fanout: WebSocket clients, writes, and milliseconds between writes.
    var realtimeConnections: Int
    var realtimeWrites: Int
    var realtimeWriteIntervalMs: Int
    /// push-fanout: devices subscribed to the topic sent to.
    var pushDevices = 10_000
}

enum Scenario: String, CaseIterable {
    // sse-fanout runs early on purpose: its "sockets released" check must not coincide with the server's
    // keep-alive tick (every 30 s after start), which would release closed streams and hide a leak. The same check in
    // sse-fanout-rules, which runs later, can miss a leak that way (rarely: the window is 1 s of every 30 s).
    case startup
    case idleRSS = "idle-rss"
    case sseFanout = "sse-fanout"
    case putSmall = "put-small"
    case getSmall = "get-small"
    // put-rules follows put-small, whose rate it is compared with.
    case putRules = "put-rules"
    case sseFanoutRules = "sse-fanout-rules"
    case query1m = "query-1m"
    // Authentication (Identity Toolkit / Secure Token on the same port), last so they leave the others undisturbed.
    case authVerify = "auth-verify"
    case authRefresh = "auth-refresh"
    case authSignin = "auth-signin"
    // File storage (Cloud Storage JSON API).
    case storageLarge = "storage-large"
    case storageSmall = "storage-small"
    // Dynamic Links: short-link redirects.
    case linkRedirects = "link-redirects"
    // Inputs shaped to be slow: one request each at the largest size accepted.
    case adversarial
    // The Swift SDK in this process observing a long list while children are added.
    case sdkObserve = "sdk-observe"
    // Realtime WebSocket protocol: their own fresh server (memory per connection is measured from idle), last so the
    // shared server is idle while they run; realtime-fanout reuses realtime-connections' clients.
    case realtimeConnections = "realtime-connections"
    case realtimeFanout = "realtime-fanout"
    // Server functions: its own hearth-functions-fixture server.
    case triggerLatency = "trigger-latency"
    // Push: its own server with APNs pointed at a double in this process.
    case pushFanout = "push-fanout"

    /// Whether the scenario runs against the shared server (startup, the realtime ones, trigger-latency and push-fanout spawn
    /// their own).
    var usesSharedServer: Bool { ![.startup, .realtimeConnections, .realtimeFanout, .triggerLatency, .pushFanout].contains(self) }
}

enum Scenarios {
    // MARK: startup

    static func startup(_ c: BenchConfig) throws -> [MetricRow] {
        var times: [Double] = []
        var exits: [String] = []
        var shutdown = Samples()
        for run in 0..<c.startupRuns {
            let server = try HearthServerProcess(binary: c.serverBinary, scratch: c.scratch, label: "startup-\(run)")
            let t: Double
            do {
                t = try server.waitUntilReady(timeout: 30)
            } catch {
                server.stop()
                throw error
            }
            times.append(t * 1000)
            usleep(100_000)
            let stopStart = nowNanos()
            exits.append(server.stop())
            shutdown.add(nowNanos() - stopStart)
        }
        let sorted = times.sorted()
        let median = sorted[sorted.count / 2]
        let unclean = exits.filter { $0 != "exit 0" }
        return [
            MetricRow(
                "startup", "spawn → first 200 (median of \(times.count))", median, unit: "ms", target: .atMost(200),
                note: "runs: " + times.map { formatNumber($0) }.joined(separator: ", ") + " ms; first 200 = GET /.json"),
            MetricRow("startup", "spawn → first 200 (max)", sorted.last, unit: "ms"),
            MetricRow("startup", "SIGTERM → exit (median)", shutdown.percentileMs(50), unit: "ms"),
            MetricRow(
                "startup", "clean exits on SIGTERM", Double(exits.count - unclean.count), target: .equals(Double(exits.count)),
                note: unclean.isEmpty ? nil : "non-clean: \(unclean)"),
        ]
    }

    // MARK: idle-rss

    static func idleRSS(_ server: HearthServerProcess) throws -> [MetricRow] {
        let atReady = server.rssMB
        sleepSeconds(2)
        let idle = server.rssMB
        return [
            MetricRow("idle-rss", "RSS at first response", atReady, unit: "MB"),
            MetricRow("idle-rss", "RSS after 2 s idle", idle, unit: "MB", target: .atMost(50)),
            MetricRow("idle-rss", "threads", server.threads.map(Double.init)),
        ]
    }

    // MARK: put-small / get-small

    static func load(_ c: BenchConfig, server: HearthServerProcess, request: LoadRequest) throws -> LoadResult {
        try loadTogether(c, server: server, [LoadSpec(request: request, connections: c.connections, threads: c.loadThreads)])[0]
    }

    /// One closed-loop load for `loadTogether`.
    struct LoadSpec {
        var request: LoadRequest
        var connections: Int
        var threads: Int
    }

    /// Runs the loads at the same time for `c.seconds` (wrk processes side by side, or in-process NIO loops on their own
    /// threads) and returns their results in order. The CPU figures cover the whole window: server, all generators
    /// together, and other processes.
    static func loadTogether(_ c: BenchConfig, server: HearthServerProcess, _ specs: [LoadSpec]) throws -> [LoadResult] {
        let serverCPU0 = server.cpuSeconds
        let selfCPU0 = cpuSeconds(children: false)
        let childCPU0 = cpuSeconds(children: true)
        let machine0 = machineBusyCPUSeconds()
        let wall0 = nowNanos()
        var results: [LoadResult]
        // Several nodes: wrk drives one URL, so the in-process generator spreads each load's connections over them.
        let ports = c.nodePorts.count > 1 ? c.nodePorts : [server.port]
        if let wrk = c.wrk, ports.count == 1 {
            var runs: [WrkDriver.Run] = []
            do {
                for spec in specs {
                    runs.append(
                        try WrkDriver.start(
                            wrk: wrk, port: server.port, request: spec.request, connections: spec.connections,
                            threads: spec.threads, seconds: c.seconds, scratch: c.scratch))
                }
            } catch {
                for run in runs { run.process.terminate(grace: 2) }
                throw error
            }
            // Collect every run before reporting a failure, so none is left running.
            let finished = runs.map { run in Result { try WrkDriver.finish(run) } }
            results = try finished.map { try $0.get() }
        } else if specs.count == 1 {
            results = [
                try NIOLoadDriver.run(
                    ports: ports, request: specs[0].request, connections: specs[0].connections,
                    threads: specs[0].threads, seconds: c.seconds)
            ]
        } else {
            let outcomes = Locked<[Int: Result<LoadResult, any Error>]>([:])
            let group = DispatchGroup()
            for (i, spec) in specs.enumerated() {
                let (seconds, request, connections, threads) = (c.seconds, spec.request, spec.connections, spec.threads)
                DispatchQueue.global().async(group: group) {
                    let r = Result {
                        try NIOLoadDriver.run(ports: ports, request: request, connections: connections, threads: threads, seconds: seconds)
                    }
                    outcomes.withLock { $0[i] = r }
                }
            }
            group.wait()
            let all = outcomes.withLock { $0 }
            results = try specs.indices.map { i in
                guard let r = all[i] else { throw BenchError("load \(i) did not report") }
                return try r.get()
            }
        }
        let wall = Double(nowNanos() - wall0) / 1e9
        let serverCores = serverCPU0.flatMap { a in server.cpuSeconds.map { ($0 - a) / wall } }
        let generatorCPU = c.wrk != nil && ports.count == 1 ? cpuSeconds(children: true) - childCPU0 : cpuSeconds(children: false) - selfCPU0
        var otherCores: Double?
        if let a = machine0, let b = machineBusyCPUSeconds(), let serverCores {
            otherCores = max(0, (b - a) / wall - serverCores - generatorCPU / wall)
        }
        for i in results.indices {
            results[i].serverCores = serverCores
            results[i].generatorCores = generatorCPU / wall
            results[i].otherCores = otherCores
            results[i].window = wall
        }
        return results
    }

    /// The rows of one load run; `prefix` starts every metric name but the rate's (for several runs in one scenario).
    static func loadRows(_ name: String, _ r: LoadResult, rateMetric: String, target: Target?, prefix: String = "") -> [MetricRow] {
        [
            MetricRow(
                name, rateMetric, r.okPerSecond, unit: "req/s", target: target,
                note: "\(r.generator), \(r.ok) ok in \(formatNumber(r.seconds)) s"),
            MetricRow(name, prefix + "latency p50", r.p50Ms, unit: "ms"),
            MetricRow(name, prefix + "latency p99", r.p99Ms, unit: "ms"),
            MetricRow(name, prefix + "latency max", r.maxMs, unit: "ms"),
            MetricRow(
                name, prefix + "server CPU during load", r.serverCores, unit: "cores",
                note: "load generator used \(formatNumber(r.generatorCores ?? 0)) cores of \(MachineInfo.current().cpus)"),
            MetricRow(
                name, prefix + "CPU used by other processes during load", r.otherCores, unit: "cores",
                note: "should be ~0 for a clean measurement; load average now \(loadAverage())"),
            MetricRow(name, prefix + "non-2xx responses", Double(r.non2xx), target: .equals(0)),
            MetricRow(name, prefix + "socket errors/timeouts", Double(r.socketErrors), target: .equals(0)),
        ]
    }

    /// The load run of a put scenario and, for distinct paths, the read-back check. Returns the rows and the
    /// acknowledged writes/s.
    static func put(
        _ name: String, _ c: BenchConfig, server: HearthServerProcess, request: LoadRequest, rateTarget: Target?
    ) throws -> (rows: [MetricRow], rate: Double) {
        let r = try load(c, server: server, request: request)
        let mode = request.kind == .putDistinct ? "distinct paths" : "same path"
        var rows = loadRows(
            name, r, rateMetric: "acknowledged writes/s (\(mode), \(c.connections) conns)", target: rateTarget)
        if request.kind == .putDistinct {
            // Every acknowledged write must be readable afterwards (in-flight ones at the end may add a few more).
            let check = try HTTPConnection(port: server.port, timeout: 120)
            let ns = request.namespace
            let parents =
                request.asUsers
                ? try shallowKeys(check, request.distinctParent, namespace: ns).map { "\(request.distinctParent)/\($0)" }
                : [request.distinctParent]
            var keys = 0
            for parent in parents { keys += try shallowKeys(check, parent, namespace: ns).count }
            let place = request.asUsers ? "\(request.distinctParent)/<uid> of \(parents.count) users" : request.distinctParent
            rows.append(
                MetricRow(
                    name, "acked writes missing on read-back", Double(max(0, r.ok - keys)), target: .equals(0),
                    note: "\(keys) keys under \(place), \(r.ok) acknowledged"))
        }
        return (rows, r.okPerSecond)
    }

    /// The child keys at `path` (admin, `shallow=true`); none when nothing is there.
    static func shallowKeys(_ conn: HTTPConnection, _ path: String, namespace: String) throws -> [String] {
        let r = try conn.expect(200, "GET", "\(path).json?ns=\(namespace)&shallow=true", "read-back")
        return ((try? r.json()) as? [String: Any]).map { Array($0.keys) } ?? []
    }

    static func putSmall(_ c: BenchConfig, server: HearthServerProcess) throws -> (rows: [MetricRow], rate: Double) {
        // Open the namespace before the clock starts.
        try HTTPConnection(port: server.port).expect(
            200, "PUT", "/bench/warm.json?ns=\(c.putMode.namespace)", body: "1", "warm-up PUT")
        return try put("put-small", c, server: server, request: c.putMode, rateTarget: .atLeast(20_000))
    }

    /// put-rules' rules: a user may write only below its own uid, and only strings shorter than 100 characters.
    static let userWriteRules = """
        {"rules": {"users": {"$uid": {"$item": {".write": "auth != null && auth.uid === $uid", \
        ".validate": "newData.isString() && newData.val().length < 100"}}}}}
        """

    /// put-rules: put-small's distinct-path load, but in the namespace `rules` under `userWriteRules`, each writer
    /// (wrk thread or in-process connection) acting as its own user. `baseline` is put-small's distinct-path rate
    /// from the same run, when there is one.
    static func putRules(_ c: BenchConfig, server: HearthServerProcess, baseline: Double?) throws -> [MetricRow] {
        let request = LoadRequest.putAsUsers
        let ns = request.namespace
        let conn = try HTTPConnection(port: server.port)
        try conn.expect(200, "PUT", "/.settings/rules.json?ns=\(ns)", body: userWriteRules, "installing rules")
        // Before the clock starts: a writer's token may write its own subtree, not another user's, and only strings,
        // so the run measures writes that the rules really check.
        let u0 = "Bearer " + unsignedDevIDToken(uid: LoadRequest.user(0))
        let leaf = LoadRequest.leafBody
        try conn.expect(200, "PUT", "/users/u0/warm.json?ns=\(ns)", body: leaf, authorization: u0, "u0 writing its own key")
        try conn.expect(401, "PUT", "/users/u1/warm.json?ns=\(ns)", body: leaf, authorization: u0, "u0 writing u1's key")
        try conn.expect(401, "PUT", "/users/u0/warm.json?ns=\(ns)", body: "1", authorization: u0, "u0 writing a number")
        try conn.expect(200, "DELETE", "/users/u0/warm.json?ns=\(ns)", "removing the warm-up key")
        var (rows, rate) = try put("put-rules", c, server: server, request: request, rateTarget: nil)
        if let baseline, baseline > 0 {
            rows.insert(
                MetricRow(
                    "put-rules", "put-rules / put-small writes/s", rate / baseline, target: .atLeast(0.85),
                    note: "put-small: \(formatNumber(baseline)) writes/s earlier in this run"),
                at: 1)
        }
        return rows
    }

    static func getSmall(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let request = LoadRequest.get
        let conn = try HTTPConnection(port: server.port)
        try conn.expect(
            200, "PUT", "/bench/get/leaf.json?ns=\(request.namespace)", body: LoadRequest.leafBody, "seed PUT")
        let check = try conn.expect(200, "GET", request.fixedTarget, "GET of the seeded leaf")
        guard check.text == LoadRequest.leafBody else { throw BenchError("GET returned \(check.text)") }
        let r = try load(c, server: server, request: request)
        return loadRows("get-small", r, rateMetric: "reads/s (\(c.connections) conns)", target: .atLeast(30_000))
    }

    // MARK: sse-fanout

    static func sseFanout(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        try fanout("sse-fanout", c, server: server, namespace: "fanout") { _ in "Bearer owner" }
    }

    /// sse-fanout-rules' rules: signed-in users whose uid starts with `u` may read `/fanout`; nobody but the admin
    /// may write.
    static let fanoutReadRules = """
        {"rules": {"fanout": {".read": "auth != null && auth.uid.beginsWith('u')", ".write": false}}}
        """

    /// sse-fanout-rules: sse-fanout in the namespace `fanoutrules` under `fanoutReadRules`, listener `i` signed in
    /// as the user `u<i>` with its own token; the writer stays admin.
    static func sseFanoutRules(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let ns = "fanoutrules"
        let listener = { (i: Int) in "Bearer " + unsignedDevIDToken(uid: "u\(i)") }
        let conn = try HTTPConnection(port: server.port)
        try conn.expect(200, "PUT", "/.settings/rules.json?ns=\(ns)", body: fanoutReadRules, "installing rules")
        // The rules are in force: a listener's token may read /fanout, a uid without the `u` may not.
        try conn.expect(200, "GET", "/fanout.json?ns=\(ns)", authorization: listener(0), "u0 reading /fanout")
        try conn.expect(
            401, "GET", "/fanout.json?ns=\(ns)", authorization: "Bearer " + unsignedDevIDToken(uid: "x0"), "x0 reading /fanout")
        return try fanout("sse-fanout-rules", c, server: server, namespace: ns, listenerAuthorization: listener)
    }

    /// One SSE fan-out run on `/fanout` in `ns` (see FanoutDriver), then the check that the server let go of the closed
    /// streams.
    static func fanout(
        _ name: String, _ c: BenchConfig, server: HearthServerProcess, namespace ns: String,
        listenerAuthorization: (Int) -> String
    ) throws -> [MetricRow] {
        // Open the namespace first so its database files are not counted as leaked descriptors.
        try HTTPConnection(port: server.port).expect(200, "GET", "/.json?ns=\(ns)", "opening the namespace")
        let fdsBefore = server.openSockets
        let r = try FanoutDriver.run(
            port: server.port, listenerPorts: c.nodePorts.isEmpty ? [server.port] : c.nodePorts, namespace: ns, authorization: listenerAuthorization, listeners: c.listeners,
            writes: c.writes, intervalMs: c.writeIntervalMs, threads: c.loadThreads)
        // The listeners are closed now; give the server a moment to notice.
        var fdsAfter = server.openSockets
        let settle = nowNanos() + 1_000_000_000
        while let a = fdsAfter, let b = fdsBefore, a > b, nowNanos() < settle {
            usleep(100_000)
            fdsAfter = server.openSockets
        }
        // If they are still open, one more write to the path makes the server notice (its write to them fails).
        var fdsAfterWrite: Int?
        if let a = fdsAfter, let b = fdsBefore, a > b {
            try HTTPConnection(port: server.port).expect(200, "PUT", "/fanout/msg.json?ns=\(ns)", body: "null", "final write")
            let deadline = nowNanos() + 3_000_000_000
            repeat {
                usleep(100_000)
                fdsAfterWrite = server.openSockets
            } while (fdsAfterWrite ?? 0) > b && nowNanos() < deadline
        }
        var delivery = r.delivery
        var ack = r.writeAck
        let expected = r.connected * r.writes
        return [
            MetricRow(
                name, "listeners with initial put", Double(r.connected), target: .equals(Double(r.listeners)),
                note: "setup (connect + initial put, batches of 100) took \(formatNumber(r.setupSeconds)) s"),
            MetricRow(
                name, "delivery latency p50", delivery.percentileMs(50), unit: "ms",
                note: "\(r.writes) writes \(c.writeIntervalMs) ms apart × \(r.connected) listeners; \(delivery.count)/\(expected) delivered"),
            MetricRow(name, "delivery latency p99", delivery.percentileMs(99), unit: "ms", target: .atMost(100)),
            MetricRow(name, "delivery latency max", delivery.percentileMs(100), unit: "ms"),
            MetricRow(name, "missed deliveries", Double(r.missed), target: .equals(0)),
            MetricRow(name, "duplicate deliveries", Double(r.duplicates), target: .equals(0)),
            MetricRow(
                name, "streams closed by server early", Double(r.closedEarly), target: .equals(0),
                note: r.errors.isEmpty && r.unparsed == 0 ? nil : "errors: \(r.errors), unparsed events: \(r.unparsed)"),
            MetricRow(name, "writer PUT ack p50", ack.percentileMs(50), unit: "ms"),
            MetricRow(
                name, "server sockets still open 1 s after listeners closed",
                fdsBefore.flatMap { b in fdsAfter.map { Double(max(0, $0 - b)) } }, target: .equals(0),
                note: "server sockets before listening \(fdsBefore.map(String.init) ?? "?"), 1 s after the client closed all "
                    + "listeners \(fdsAfter.map(String.init) ?? "?")"
                    + (fdsAfterWrite.map { ", after one more write to the path \($0)" } ?? "")),
        ]
    }

    // MARK: query-1m

    static func query(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let ns = "query"
        let conn = try HTTPConnection(port: server.port, timeout: 600)
        let rules = #"{"rules":{".read":false,".write":false,"items":{".indexOn":["score"]}}}"#
        let rr = try conn.request("PUT", "/.settings/rules.json?ns=\(ns)", body: Array(rules.utf8))
        guard rr.status == 200 else { throw BenchError("installing rules: HTTP \(rr.status) \(rr.text)") }

        // Seed: deterministic scores, keys i0000000… (zero-padded so key order = index order).
        var rng = SplitMix64(state: 42)
        let n = c.items
        var scores = [Int](repeating: 0, count: n)
        for i in 0..<n { scores[i] = Int(rng.next() % 1_000_000_000) }
        func key(_ i: Int) -> String {
            let s = String(i)
            return "i" + String(repeating: "0", count: max(0, 7 - s.count)) + s
        }
        let batch = 10_000
        let seedStart = nowNanos()
        var batchTimes = Samples()
        var first = 0
        while first < n {
            let last = min(first + batch, n)
            var body = "{"
            body.reserveCapacity(batch * 48)
            for i in first..<last {
                if i > first { body += "," }
                let k = key(i)
                body += "\"\(k)\":{\"score\":\(scores[i]),\"name\":\"item-\(k)\"}"
            }
            body += "}"
            let t = nowNanos()
            let r = try conn.request("PATCH", "/items.json?ns=\(ns)&print=silent", body: Array(body.utf8))
            batchTimes.add(nowNanos() - t)
            guard (200..<300).contains(r.status) else {
                throw BenchError("seeding batch at \(first): HTTP \(r.status) \(r.text.prefix(300))")
            }
            first = last
            if (first / batch) % 10 == 0 { log("query: seeded \(first)/\(n)") }
        }
        let seedSeconds = Double(nowNanos() - seedStart) / 1e9
        let rssAfterSeed = server.rssMB

        // Expected answer: the 10 highest (score, key).
        let expected = Set((0..<n).sorted { (scores[$0], $0) < (scores[$1], $1) }.suffix(10).map(key))
        let target = "/items.json?ns=\(ns)&orderBy=%22score%22&limitToLast=10"
        func check(_ r: HTTPResult) -> String? {
            guard r.status == 200 else { return "HTTP \(r.status) \(r.text.prefix(200))" }
            guard let obj = (try? r.json()) as? [String: Any] else { return "not a JSON object: \(r.text.prefix(200))" }
            let got = Set(obj.keys)
            return got == expected ? nil : "wrong children: got \(got.sorted()), expected \(expected.sorted())"
        }
        let t0 = nowNanos()
        let firstResponse = try conn.get(target)
        let firstMs = Double(nowNanos() - t0) / 1e6
        var problems: [String] = []
        if let p = check(firstResponse) { problems.append("first query: " + p) }

        var lat = Samples()
        var ordered: [UInt64] = []
        let budget: UInt64 = (c.quick ? 60 : 180) * 1_000_000_000
        let loopStart = nowNanos()
        let machine0 = machineBusyCPUSeconds(), server0 = server.cpuSeconds, own0 = cpuSeconds(children: false)
        var last = firstResponse
        for _ in 0..<c.queries {
            let t = nowNanos()
            last = try conn.get(target)
            lat.add(nowNanos() - t)
            ordered.append(nowNanos() - t)
            if last.status != 200 {
                problems.append("HTTP \(last.status) \(last.text.prefix(200))")
                break
            }
            if nowNanos() - loopStart > budget { break }
        }
        let loopWall = Double(nowNanos() - loopStart) / 1e9
        var othersDuringLoop: Double?
        if let m0 = machine0, let m1 = machineBusyCPUSeconds(), let s0 = server0, let s1 = server.cpuSeconds {
            othersDuringLoop = max(0, (m1 - m0 - (s1 - s0) - (cpuSeconds(children: false) - own0)) / loopWall)
        }
        if let p = check(last) { problems.append("last query: " + p) }
        let label = n >= 1_000_000 ? "\(n / 1_000_000)M" : "\(n / 1000)k"
        return [
            MetricRow(
                "query-1m", "seed \(label) children (PATCH × \(batch))", seedSeconds, unit: "s",
                note: "\(formatNumber(Double(n) / seedSeconds)) children/s; PATCH p50 \(formatNumber(batchTimes.percentileMs(50) ?? 0)) ms, max \(formatNumber(batchTimes.percentileMs(100) ?? 0)) ms"),
            MetricRow("query-1m", "RSS after seeding", rssAfterSeed, unit: "MB"),
            MetricRow("query-1m", "first query latency", firstMs, unit: "ms"),
            MetricRow(
                "query-1m", "orderBy score limitToLast=10 p50", lat.percentileMs(50), unit: "ms",
                note: "\(lat.count) sequential queries on one keep-alive connection over \(label) children"),
            MetricRow(
                "query-1m", "orderBy score limitToLast=10 p99", lat.percentileMs(99), unit: "ms", target: .atMost(5),
                note: "max \(formatNumber(lat.percentileMs(100) ?? 0)) ms; other processes used "
                    + "\(formatNumber(othersDuringLoop ?? .nan)) cores during the \(formatNumber(loopWall)) s query loop; "
                    + "slowest: " + ordered.enumerated().sorted { $0.element > $1.element }.prefix(5)
                        .map { "#\($0.offset) \(formatNumber(Double($0.element) / 1e6)) ms" }.joined(separator: ", ")),
            MetricRow(
                "query-1m", "wrong or failed answers", Double(problems.count), target: .equals(0),
                note: problems.isEmpty ? "first and last answers = the expected top 10" : problems.joined(separator: "; ")),
        ]
    }
}
