import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct HearthBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-bench",
        abstract: "Benchmarks a real `hearth serve --dev` process on 127.0.0.1 against Hearth's performance targets.",
        discussion: """
            Scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).
            Each run starts the server binary in a fresh temporary data folder on a free port, runs the scenarios \
            (always in the order above), prints a table, optionally writes JSON, and stops the server with SIGTERM. \
            put-small, get-small and put-rules are driven by wrk when it is on PATH (faster than any in-process \
            client on a small machine), otherwise by an in-process SwiftNIO load loop. put-rules and \
            sse-fanout-rules repeat put-small (distinct paths) and sse-fanout in their own namespaces with security \
            rules installed, each writer or listener signed in as its own user (an unsigned dev ID token).
            auth-verify times ID-token verification in-process (AuthService with a memory store and a new RSA-2048 \
            key; --auth-tokens distinct tokens; 3 s on 1 thread, then 3 s on every core), then a GET of one leaf with \
            a Bearer ID token under `.read: auth != null` against the same GET as admin over HTTP (2 interleaved \
            rounds each). auth-refresh signs up --refresh-users users and drives Secure Token refreshes cycling their \
            refresh tokens (--connections), and times one RS256 signature in-process. auth-signin runs an admin GET \
            load (--signin-read-connections) alone, then again while --signin-clients clients sign in with passwords \
            (--signin-users users) in a loop, and compares the read rates. storage-large uploads and downloads 1 GiB (quick: \
            256 MiB) in one request each through the Cloud Storage JSON API and samples the server's RSS; storage-small \
            drives 10 KB multipart uploads (1,000 names cycled) with the load generator. link-redirects creates a short \
            link on the server's own origin and drives GETs of it as a desktop browser (302s), then checks that the \
            link stats counted every redirect. adversarial sends, once each (signed out where rules apply), the inputs that were \
            quadratic (issue 30 §4) at the largest size the server accepts (quick: 1/16 of it) and times the request: \
            a 16 MiB PUT with keys in descending order, a PUT of server values under one parent, a PATCH of n paths and \
            n priorities under a newData rule, a 7 KiB `startAt=[1,1,1,…` bound, and a 1 MiB download-token update. sdk-observe runs the Swift SDK in this process against lists of 100, \
            2,000 and 10,000 children (quick: 100 and 2,000): a value observer, then a child-event observer, each while \
            50 (quick 20) REST writes add a child one at a time; it times write → observer and the bench's CPU per write.
            realtime-connections starts its own server and opens --realtime-connections WebSocket clients (protocol v5, \
            gauth as owner, listens on /conns/<i> and /shared) and reads the server's RSS before and after; \
            realtime-fanout then PUTs --realtime-writes values to /shared over REST and times every client's push. \
            push-fanout starts its own server with APNs pointed at an APNs double in this process (HTTP/2, TLS), registers \
            --push-devices devices (each its own user) on one topic, and times one send to the topic.
            """)

    @Option(help: "The hearth binary (default: `hearth` next to this executable).")
    var server: String?

    @Option(help: "Comma-separated scenarios to run (default: all).")
    var scenarios: String?

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Flag(help: "Shorter runs: 3 s load, 100,000 query children, 20 fan-out writes.")
    var quick = false

    @Option(help: "Seconds per load run for put-small/get-small/put-rules and the auth scenarios' HTTP loads (default 10, quick 3).")
    var duration: Int?

    @Option(help: "Concurrent connections for put-small/get-small/put-rules, auth-verify's GETs and auth-refresh.")
    var connections = 64

    @Option(help: "Load generator for the HTTP loads (put-small, get-small, put-rules, auth-*): auto, wrk or nio.")
    var generator = "auto"

    @Option(help: "Threads/event loops for the load generator and the SSE listeners (put-rules: one user per wrk thread).")
    var loadThreads = 2

    @Option(help: "put-small target paths: distinct (a new key per request) or same (one key); put-rules is always distinct.")
    var putMode = "distinct"

    @Option(help: "Children seeded for query-1m (default 1,000,000; quick 100,000).")
    var items: Int?

    @Option(help: "Sequential queries for query-1m (also bounded by time: 180 s, quick 60 s).")
    var queries = 500

    @Option(help: "SSE listeners for sse-fanout and sse-fanout-rules.")
    var listeners = 1000

    @Option(help: "Writes for sse-fanout and sse-fanout-rules (default 50, quick 20).")
    var writes: Int?

    @Option(help: "Milliseconds between sse-fanout and sse-fanout-rules writes.")
    var writeInterval = 100

    @Option(help: "Server starts measured by the startup scenario.")
    var startupRuns = 5

    @Option(help: "auth-verify: distinct ID tokens minted in-process and verified in a cycle.")
    var authTokens = 1000

    @Option(help: "auth-refresh: users signed up whose refresh tokens the load cycles through.")
    var refreshUsers = 64

    @Option(help: "auth-signin: users signed up for the sign-in load.")
    var signinUsers = 16

    @Option(help: "auth-signin: concurrent clients looping signInWithPassword (one wrk thread, or NIO connections).")
    var signinClients = 8

    @Option(help: "auth-signin: connections of the admin GET load measured alone and beside the sign-ins.")
    var signinReadConnections = 32

    @Option(help: "auth-signin: milliseconds each sign-in client waits before each request (0: back to back), to pace the sign-ins.")
    var signinDelayMs = 0

    @Option(help: "The server's --password-cost (log2 of scrypt's N, 12-18; default: the server's, 14).")
    var passwordCost: Int?

    @Option(help: "realtime-connections/realtime-fanout: WebSocket clients, each listening on its own path and /shared.")
    var realtimeConnections = 10_000

    @Option(help: "push-fanout: devices subscribed to the topic (default 10,000; quick 1,000).")
    var pushDevices: Int?

    @Option(help: "realtime-fanout: REST writes to /shared.")
    var realtimeWrites = 20

    @Option(help: "realtime-fanout: milliseconds between writes.")
    var realtimeWriteInterval = 300

    @Option(help: "Run the shared server on PostgreSQL: a server URL whose user may create databases (the run gets a fresh one, dropped afterwards), e.g. postgres://postgres@127.0.0.1:5432/postgres.")
    var postgres: String?

    @Option(help: "With --postgres: nodes sharing the database and data folder. put-small/get-small/put-rules spread their connections over the nodes (in-process generator); the SSE fan-outs spread their listeners and write on node 1.")
    var nodes = 1

    @Flag(help: "Keep the temporary folder (data and server logs) for inspection.")
    var keepData = false

    func validate() throws {
        guard ["auto", "wrk", "nio"].contains(generator) else { throw ValidationError("--generator must be auto, wrk or nio") }
        guard ["distinct", "same"].contains(putMode) else { throw ValidationError("--put-mode must be distinct or same") }
        guard (1...10_000).contains(connections), (1...64).contains(loadThreads), (1...20_000).contains(listeners),
            (1...10_000_000).contains(items ?? 1), (1...100_000).contains(queries), (1...1000).contains(writes ?? 1),
            (1...3600).contains(duration ?? 1), (1...100).contains(startupRuns), (1...10_000).contains(writeInterval),
            (1...100_000).contains(authTokens), (1...10_000).contains(refreshUsers), (1...10_000).contains(signinUsers),
            (1...1000).contains(signinClients), (1...10_000).contains(signinReadConnections), (0...60_000).contains(signinDelayMs),
            (12...18).contains(passwordCost ?? 14),
            (1...100_000).contains(realtimeConnections), (1...1000).contains(realtimeWrites),
            (1...60_000).contains(realtimeWriteInterval), (1...16).contains(nodes)
        else { throw ValidationError("an option is out of range") }
        if nodes > 1 && postgres == nil { throw ValidationError("--nodes needs --postgres (nodes share one database)") }
        if let scenarios {
            for name in scenarios.split(separator: ",") where Scenario(rawValue: String(name)) == nil {
                throw ValidationError("unknown scenario \(name); known: \(Scenario.allCases.map(\.rawValue).joined(separator: ","))")
            }
        }
    }

    func run() throws {
        raiseOpenFileLimit()
        installSignalCleanup()
        let binary = server.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            ?? (URL(fileURLWithPath: ownExecutablePath()).deletingLastPathComponent().path + "/hearth")
        guard access(binary, X_OK) == 0 else {
            throw ValidationError("no executable hearth at \(binary); build it or pass --server")
        }
        var wrk: String?
        switch generator {
        case "wrk":
            guard let w = findOnPath("wrk") else { throw ValidationError("--generator wrk but wrk is not on PATH") }
            wrk = w
        case "auto": wrk = findOnPath("wrk")
        default: wrk = nil
        }
        let selected: [Scenario] = {
            guard let scenarios else { return Scenario.allCases }
            let names = Set(scenarios.split(separator: ",").map(String.init))
            return Scenario.allCases.filter { names.contains($0.rawValue) }
        }()
        let scratch = try makeTemporaryDirectory(prefix: "hearth-bench")
        let database = try postgres.map { try BenchDatabase(serverURL: $0, scratch: scratch) }
        defer { database?.drop() }
        var serverArguments = passwordCost.map { ["--password-cost", String($0)] } ?? []
        if let database { serverArguments += ["--postgres", database.url] }
        var config = BenchConfig(
            serverBinary: binary, scratch: scratch, quick: quick, seconds: duration ?? (quick ? 3 : 10),
            connections: connections, loadThreads: loadThreads, wrk: wrk,
            putMode: putMode == "same" ? .putSame : .putDistinct,
            items: items ?? (quick ? 100_000 : 1_000_000), queries: queries, listeners: listeners,
            writes: writes ?? (quick ? 20 : 50), writeIntervalMs: writeInterval, startupRuns: startupRuns,
            authTokens: authTokens, refreshUsers: refreshUsers, signinUsers: signinUsers, signinClients: signinClients,
            signinReadConnections: signinReadConnections, signinDelayMs: signinDelayMs, passwordCost: passwordCost,
            realtimeConnections: realtimeConnections,
            realtimeWrites: realtimeWrites, realtimeWriteIntervalMs: realtimeWriteInterval, pushDevices: pushDevices ?? (quick ? 1_000 : 10_000))
        let generatorName = wrk.map { "wrk (\($0), \(loadThreads) threads)" } ?? "in-process SwiftNIO (\(loadThreads) event loops)"
        log("server \(binary); scratch \(scratch); load generator: \(generatorName)"
            + (database.map { "; PostgreSQL database \($0.name), \(nodes) node(s)" } ?? ""))
        let loadAtStart = loadAverage()

        var rows: [MetricRow] = []
        var notes: [String] = []
        var shared: HearthServerProcess?
        // With --nodes: the other nodes of the shared server's cluster.
        var others: [HearthServerProcess] = []
        var serverCount = 0
        // put-small's distinct-path rate, for put-rules' comparison.
        var putSmallRate: Double?
        // realtime-connections' server and clients, for realtime-fanout.
        var realtime: RealtimeRun?
        defer {
            if let s = shared { log("stopping server pid \(s.pid): \(s.stop())") }
            for node in others { log("stopping node pid \(node.pid): \(node.stop())") }
            _ = realtime?.finish("realtime")
        }

        for scenario in selected {
            log("scenario \(scenario.rawValue) …")
            let started = nowNanos()
            do {
                if scenario.usesSharedServer {
                    if let s = shared, !s.isRunning {
                        let note = "server pid \(s.pid) died before \(scenario.rawValue) (\(s.process.describeExit())); log tail:\n\(s.logTail())"
                        notes.append(note)
                        log(note)
                        shared = nil
                    }
                    if shared == nil {
                        serverCount += 1
                        let s = try HearthServerProcess(
                            binary: binary, scratch: scratch, label: "main-\(serverCount)", extraArguments: serverArguments)
                        shared = s
                        try s.waitUntilReady()
                        log("server pid \(s.pid) on port \(s.port)")
                        for node in others { _ = node.stop() }
                        others = []
                        for k in 1..<nodes {
                            let node = try HearthServerProcess(
                                binary: binary, scratch: scratch, label: "main-\(serverCount)-node\(k + 1)", extraArguments: serverArguments,
                                dataDir: s.dataDir)
                            others.append(node)
                            try node.waitUntilReady()
                            log("node \(k + 1) pid \(node.pid) on port \(node.port)")
                        }
                        config.nodePorts = others.isEmpty ? [] : [s.port] + others.map(\.port)
                    }
                }
                let server = shared
                let cpu0 = (machineBusyCPUSeconds(), server?.cpuSeconds, cpuSeconds(children: false) + cpuSeconds(children: true))
                let wall0 = nowNanos()
                var result: [MetricRow]
                switch scenario {
                case .startup: result = try Scenarios.startup(config)
                case .idleRSS: result = try Scenarios.idleRSS(server!)
                case .putSmall:
                    let put = try Scenarios.putSmall(config, server: server!)
                    result = put.rows
                    if config.putMode == .putDistinct { putSmallRate = put.rate }
                case .getSmall: result = try Scenarios.getSmall(config, server: server!)
                case .putRules: result = try Scenarios.putRules(config, server: server!, baseline: putSmallRate)
                case .sseFanout: result = try Scenarios.sseFanout(config, server: server!)
                case .sseFanoutRules: result = try Scenarios.sseFanoutRules(config, server: server!)
                case .query1m: result = try Scenarios.query(config, server: server!)
                case .authVerify: result = try Scenarios.authVerify(config, server: server!)
                case .authRefresh: result = try Scenarios.authRefresh(config, server: server!)
                case .authSignin: result = try Scenarios.authSignin(config, server: server!)
                case .storageLarge: result = try Scenarios.storageLarge(config, server: server!)
                case .storageSmall: result = try Scenarios.storageSmall(config, server: server!)
                case .linkRedirects: result = try Scenarios.linkRedirects(config, server: server!)
                case .adversarial: result = try Scenarios.adversarial(config, server: server!)
                case .sdkObserve: result = try Scenarios.sdkObserve(config, server: server!)
                case .realtimeConnections:
                    let r = try Scenarios.realtimeConnections(config)
                    result = r.rows
                    if selected.contains(.realtimeFanout) { realtime = r.run } else { result += r.run.finish(scenario.rawValue) }
                case .realtimeFanout:
                    defer { realtime = nil }
                    result = try Scenarios.realtimeFanout(config, run: realtime)
                case .triggerLatency: result = try Scenarios.triggerLatency(config)
                case .pushFanout: result = try Scenarios.pushFanout(config)
                }
                if [.sseFanout, .sseFanoutRules, .query1m].contains(scenario), let m0 = cpu0.0, let s0 = cpu0.1,
                    let m1 = machineBusyCPUSeconds(), let s1 = server?.cpuSeconds
                {
                    let wall = Double(nowNanos() - wall0) / 1e9
                    let own = cpuSeconds(children: false) + cpuSeconds(children: true) - cpu0.2
                    result.append(
                        MetricRow(
                            scenario.rawValue, "CPU used by other processes (avg)", max(0, (m1 - m0 - (s1 - s0) - own) / wall),
                            unit: "cores",
                            note: "server averaged \(formatNumber((s1 - s0) / wall)) cores, bench \(formatNumber(own / wall)) cores over \(formatNumber(wall)) s"))
                }
                if let s = server, scenario != .idleRSS {
                    if s.isRunning {
                        result.append(MetricRow(scenario.rawValue, "server RSS after scenario", s.rssMB, unit: "MB"))
                    } else {
                        result.append(
                            MetricRow(
                                scenario.rawValue, "server alive after scenario", 0, target: .equals(1),
                                note: "\(s.process.describeExit()): \(s.logTail(lines: 5))"))
                    }
                }
                rows += result
            } catch {
                let alive = shared.map { $0.isRunning ? "server still running" : "server exited: \($0.process.describeExit())" } ?? ""
                rows.append(MetricRow(scenario.rawValue, "completed", 0, target: .equals(1), note: "\(error) \(alive)"))
                log("scenario \(scenario.rawValue) failed: \(error)")
            }
            log("scenario \(scenario.rawValue) done in \(formatNumber(Double(nowNanos() - started) / 1e9)) s")
            out(renderTable(rows.filter { $0.scenario == scenario.rawValue }) + "\n")
        }

        if let s = shared {
            let errors = s.errorLines()
            if !errors.isEmpty {
                notes.append("server log has \(errors.count) error line(s), e.g. \(errors.prefix(3))")
            }
            if let peak = s.peakRSSMB {
                rows.append(MetricRow("summary", "server peak RSS (VmHWM)", peak, unit: "MB"))
            }
            let stopped = s.stop()
            if stopped != "exit 0" { notes.append("shared server did not exit cleanly on SIGTERM: \(stopped)") }
            shared = nil
        }

        if nodes > 1 {
            notes.append(
                "\(nodes) nodes on one PostgreSQL database: the server CPU and RSS figures are node 1's; the other nodes and PostgreSQL "
                    + "count as other processes")
        }
        notes.append("load average (1/5/15 min) at start \(loadAtStart), at end \(loadAverage()) on \(MachineInfo.current().cpus) CPUs")
        out("== hearth-bench results (\(quick ? "quick" : "full") run; load generator: \(generatorName)) ==")
        out(renderTable(rows))
        if !notes.isEmpty { out("\n" + notes.joined(separator: "\n")) }
        let missed = rows.filter { $0.met == false }
        out("\n\(rows.filter { $0.met == true }.count) targets met, \(missed.count) missed" +
            (missed.isEmpty ? "" : ": " + missed.map { "\($0.scenario)/\($0.metric)" }.joined(separator: ", ")))

        if let json {
            let formatter = ISO8601DateFormatter()
            let commit = try? Subprocess.run(
                findOnPath("git") ?? "/usr/bin/git", ["rev-parse", "--short", "HEAD"], timeout: 10, scratch: scratch)
            let report = BenchReport(
                date: formatter.string(from: Date()),
                gitCommit: commit.flatMap { $0.1 == 0 ? $0.0.trimmingCharacters(in: .whitespacesAndNewlines) : nil },
                server: binary,
                serverBuilt: ((try? FileManager.default.attributesOfItem(atPath: binary))?[.modificationDate] as? Date)
                    .map { formatter.string(from: $0) },
                quick: quick, loadGenerator: generatorName, machine: MachineInfo.current(), notes: notes,
                results: rows)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let url = URL(fileURLWithPath: json)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(report).write(to: url)
            log("wrote \(json)")
        }
        if keepData {
            log("kept \(scratch)")
        } else {
            try? FileManager.default.removeItem(atPath: scratch)
        }
    }
}
