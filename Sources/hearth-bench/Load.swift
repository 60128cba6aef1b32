import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What a closed-loop load run (N connections, each sending its next request when the previous answered) measured.
struct LoadResult: Sendable {
    var generator: String
    var completed: Int
    var ok: Int
    var non2xx: Int
    var socketErrors: Int
    var seconds: Double
    var p50Ms: Double?
    var p90Ms: Double?
    var p99Ms: Double?
    var maxMs: Double?
    /// Average cores used during the run (filled in by the caller). When several loads ran at once, every result
    /// carries the figures of the whole window, and `generatorCores` is all generators together.
    var serverCores: Double?
    var generatorCores: Double?
    var otherCores: Double?
    /// Wall seconds of the measured window (generator start to end, filled in by the caller).
    var window: Double?
    var okPerSecond: Double { seconds > 0 ? Double(ok) / seconds : 0 }
    /// Server CPU seconds per acknowledged request, in µs (the whole window's server CPU over this run's requests).
    var serverMicrosPerOK: Double? {
        guard let serverCores, let window, ok > 0 else { return nil }
        return serverCores * window / Double(ok) * 1e6
    }
}

/// Which request a load run sends.
struct LoadRequest: Sendable, Equatable {
    enum Kind: String, Sendable {
        /// PUT of a small JSON string leaf at a new key per request (see `distinctPath`).
        case putDistinct
        /// PUT of a small JSON string leaf, always at `/bench/same/leaf`.
        case putSame
        /// GET of `/bench/get/leaf`.
        case get
        /// POST of `bodies` to `postTarget`: request n of a wrk thread or connection w sends
        /// `bodies[(w * 7919 + n) % bodies.count]`, so the generators cycle through all of them at different offsets.
        case post
        /// GET of `postTarget` (a short link) without credentials, as a desktop browser; a 302 counts as success.
        case redirect
    }

    /// Who the requests act as.
    enum Credential: Sendable, Equatable {
        /// The dev admin token, `Bearer owner`.
        case admin
        /// Writer `w` (a wrk thread or an in-process connection) acts as the user `u<w>` with its unsigned dev ID token.
        case perWriter
        /// One bearer token on every request.
        case bearer(String)
        /// No `Authorization` header (Identity Toolkit and Secure Token clients send an API key instead).
        case none
    }

    var kind: Kind
    var namespace = "bench"
    var credential: Credential = .admin
    /// `.post` only: the request target, the bodies and their content type.
    var postTarget = ""
    var bodies: [String] = []
    var contentType = "application/json"
    /// Names the run (wrk script file); default: the kind.
    var name: String?
    /// Milliseconds each connection waits before each request (0: back to back).
    var delayMs = 0

    static let putDistinct = LoadRequest(kind: .putDistinct)
    static let putSame = LoadRequest(kind: .putSame)
    static let get = LoadRequest(kind: .get)
    /// put-rules: distinct PUTs, one user per writer, in the namespace `rules`.
    static let putAsUsers = LoadRequest(kind: .putDistinct, namespace: "rules", credential: .perWriter)

    /// A GET of `/bench/get/leaf` in `namespace` with `credential`.
    static func get(namespace: String, credential: Credential = .admin, name: String? = nil) -> LoadRequest {
        LoadRequest(kind: .get, namespace: namespace, credential: credential, name: name)
    }

    /// POSTs of `bodies` (cycled) to `target`, without an `Authorization` header.
    static func post(_ target: String, bodies: [String], contentType: String, name: String) -> LoadRequest {
        LoadRequest(kind: .post, credential: .none, postTarget: target, bodies: bodies, contentType: contentType, name: name)
    }

    /// GETs of a short link's path (link-redirects).
    static func redirect(_ target: String) -> LoadRequest {
        LoadRequest(kind: .redirect, credential: .none, postTarget: target, name: "redirect")
    }

    /// The browser link-redirects poses as.
    static let desktopUserAgent = "Mozilla/5.0 (X11; Linux x86_64) hearth-bench"

    static let leafBody = "\"small-leaf-value\""

    /// Each writer acts as its own user (put-rules).
    var asUsers: Bool { credential == .perWriter }
    var isPut: Bool { kind == .putDistinct || kind == .putSame }
    var method: String {
        switch kind {
        case .get, .redirect: "GET"
        case .post: "POST"
        case .putDistinct, .putSame: "PUT"
        }
    }
    var label: String { name ?? (kind.rawValue + (asUsers ? "-users" : "")) }

    /// The parent of the distinct keys (as users: the parent of the users).
    var distinctParent: String { asUsers ? "/users" : "/bench/put" }

    /// Writer `w`'s `n`-th distinct PUT goes to `prefix + w + separator + n + ".json?ns=…"`; `writerTag` marks the
    /// generator in admin keys (`t` wrk thread, `c` connection).
    func distinctPath(writerTag: String) -> (prefix: String, separator: String) {
        asUsers ? (distinctParent + "/u", "/k") : (distinctParent + "/" + writerTag, "-")
    }

    /// The target of GETs, same-path PUTs and POSTs; for distinct PUTs, their parent (never requested).
    var fixedTarget: String {
        switch kind {
        case .get: "/bench/get/leaf.json?ns=\(namespace)"
        case .putSame: "/bench/same/leaf.json?ns=\(namespace)"
        case .putDistinct: "\(distinctParent).json?ns=\(namespace)"
        case .post, .redirect: postTarget
        }
    }

    /// Writer `w`'s `n`-th body (`.post`; the same rule as the wrk script's).
    func body(writer: Int, n: Int) -> String? {
        switch kind {
        case .post: bodies.isEmpty ? nil : bodies[(writer &* 7919 &+ n) % bodies.count]
        case .putDistinct, .putSame: Self.leafBody
        case .get, .redirect: nil
        }
    }

    /// The user writer `w` acts as (`asUsers`).
    static func user(_ writer: Int) -> String { "u\(writer)" }

    /// The `Authorization` header value writer `w` sends (nil: none).
    func authorization(writer: Int) -> String? {
        switch credential {
        case .admin: "Bearer owner"
        case .perWriter: "Bearer " + unsignedDevIDToken(uid: Self.user(writer))
        case .bearer(let token): "Bearer " + token
        case .none: nil
        }
    }
}

// MARK: - wrk

/// Drives wrk (C, epoll, LuaJIT): far cheaper per request than anything in-process, so on a 2-core box it leaves
/// more CPU to the server. The Lua `done` hook prints exact counts and percentiles on one line.
enum WrkDriver {
    static let doneHook = """
        function done(summary, latency, requests)
          io.write(string.format("HEARTH_BENCH requests=%d duration_us=%d non2xx=%d connect=%d read=%d write=%d timeout=%d p50=%.0f p90=%.0f p99=%.0f max=%.0f\\n",
            summary.requests, summary.duration, summary.errors.status, summary.errors.connect, summary.errors.read,
            summary.errors.write, summary.errors.timeout, latency:percentile(50), latency:percentile(90),
            latency:percentile(99), latency.max))
        end
        """

    /// A Lua long-bracket string literal (no escaping needed inside).
    static func luaString(_ text: String) -> String {
        if text.unicodeScalars.contains("\r") {
            // Long brackets turn CRLF into LF; multipart bodies need their CRLFs, so escape instead.
            var out = "\""
            for c in text.unicodeScalars {
                switch c {
                case "\\": out += "\\\\"
                case "\"": out += "\\\""
                case "\r": out += "\\r"
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        }
        var level = 1
        while text.contains("]" + String(repeating: "=", count: level) + "]") { level += 1 }
        let eq = String(repeating: "=", count: level)
        return "[\(eq)[\(text)]\(eq)]"
    }

    /// The Lua script for `request`; with `asUsers`, thread `t` (0-based) sends user `u<t>`'s token (set in `init`,
    /// which runs in the thread's own Lua state after `setup` gave it its `tid`).
    static func script(for request: LoadRequest, threads: Int) -> String {
        var common = request.authorization(writer: 0).map { "wrk.headers[\"Authorization\"] = \(luaString($0))\n\n" } ?? ""
        if request.delayMs > 0 { common += "function delay()\n  return \(request.delayMs)\nend\n\n" }
        let threadIDs = """
            local nextid = 0
            function setup(thread)
              thread:set("tid", nextid)
              nextid = nextid + 1
            end

            """
        switch request.kind {
        case .get:
            return common + "wrk.method = \"GET\"\n" + doneHook
        case .redirect:
            return common + "wrk.method = \"GET\"\nwrk.headers[\"User-Agent\"] = \(luaString(LoadRequest.desktopUserAgent))\n" + doneHook
        case .putSame:
            return common + """
                wrk.method = "PUT"
                wrk.headers["Content-Type"] = "application/json"
                wrk.body = '\(LoadRequest.leafBody)'

                """ + doneHook
        case .post:
            // Thread t's n-th request sends bodies[(t * 7919 + n) % #bodies] (LoadRequest.body(writer:n:)).
            return common + threadIDs + """
                local bodies = {
                \(request.bodies.map { "  " + luaString($0) + "," }.joined(separator: "\n"))
                }
                local counter = 0
                wrk.method = "POST"
                wrk.headers["Content-Type"] = \(luaString(request.contentType))
                function request()
                  counter = counter + 1
                  return wrk.format(nil, nil, nil, bodies[(tid * 7919 + counter) % #bodies + 1])
                end

                """ + doneHook
        case .putDistinct:
            let (prefix, separator) = request.distinctPath(writerTag: "t")
            let perUser =
                !request.asUsers
                ? ""
                : """
                local authorizations = { \((0..<threads).map { "[\($0)] = \(luaString(request.authorization(writer: $0) ?? ""))" }.joined(separator: ", ")) }
                function init(args)
                  wrk.headers["Authorization"] = authorizations[tid]
                end

                """
            return common + threadIDs + """
                \(perUser)local counter = 0
                wrk.method = "PUT"
                wrk.headers["Content-Type"] = "application/json"
                wrk.body = '\(LoadRequest.leafBody)'
                function request()
                  counter = counter + 1
                  return wrk.format(nil, "\(prefix)" .. tid .. "\(separator)" .. counter .. ".json?ns=\(request.namespace)")
                end

                """ + doneHook
        }
    }

    /// A wrk process under way (see `start` and `finish`).
    struct Run {
        let process: Subprocess
        let threads: Int
        let seconds: Int
    }

    /// Starts wrk for `request` and returns at once, so several runs can overlap.
    static func start(
        wrk: String, port: Int, request: LoadRequest, connections: Int, threads: Int, seconds: Int, scratch: String
    ) throws -> Run {
        let scriptPath = scratch + "/wrk-\(request.label).lua"
        try script(for: request, threads: threads).write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // Distinct PUTs replace the target in request().
        let args = [
            "-t", String(threads), "-c", String(connections), "-d", "\(seconds)s", "--timeout", "10s", "--latency",
            "-s", scriptPath, "http://127.0.0.1:\(port)\(request.fixedTarget)",
        ]
        let process = try Subprocess(
            executable: wrk, arguments: args,
            outputPath: scratch + "/wrk-\(request.label)-\(UInt32.random(in: 0...UInt32.max)).out")
        return Run(process: process, threads: threads, seconds: seconds)
    }

    /// Waits for a run to end (bounded) and reads its `done()` line.
    static func finish(_ run: Run) throws -> LoadResult {
        let p = run.process
        if !p.wait(timeout: Double(run.seconds) + 60) {
            p.terminate(grace: 2)
            throw BenchError("wrk did not finish within \(run.seconds + 60) s")
        }
        let output = p.output
        try? FileManager.default.removeItem(atPath: p.outputPath)
        let code = p.exitCode
        guard code == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("HEARTH_BENCH ") }) else {
            throw BenchError("wrk failed (exit \(code.map(String.init) ?? "?")):\n\(output)")
        }
        var fields: [String: Double] = [:]
        for part in line.split(separator: " ").dropFirst() {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = Double(kv[1]) }
        }
        let completed = Int(fields["requests"] ?? 0)
        let non2xx = Int(fields["non2xx"] ?? 0)
        let socketErrors = Int((fields["connect"] ?? 0) + (fields["read"] ?? 0) + (fields["write"] ?? 0) + (fields["timeout"] ?? 0))
        return LoadResult(
            generator: "wrk (\(run.threads) threads)", completed: completed, ok: completed - non2xx, non2xx: non2xx,
            socketErrors: socketErrors, seconds: (fields["duration_us"] ?? 0) / 1e6,
            p50Ms: fields["p50"].map { $0 / 1000 }, p90Ms: fields["p90"].map { $0 / 1000 },
            p99Ms: fields["p99"].map { $0 / 1000 }, maxMs: fields["max"].map { $0 / 1000 })
    }

    static func run(
        wrk: String, port: Int, request: LoadRequest, connections: Int, threads: Int, seconds: Int, scratch: String
    ) throws -> LoadResult {
        try finish(start(wrk: wrk, port: port, request: request, connections: connections, threads: threads, seconds: seconds, scratch: scratch))
    }
}

// MARK: - In-process NIO load loop (fallback when wrk is missing)

struct ConnectionStats: Sendable {
    var latencies: [UInt64] = []
    var ok = 0
    var non2xx = 0
    var errors = 0
    var finishedAt: UInt64 = 0
}

/// One keep-alive connection sending requests back to back until the deadline.
final class LoadConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let connection: Int
    let port: Int
    let request: LoadRequest
    let deadline: UInt64
    let promise: EventLoopPromise<ConnectionStats>
    private let authorization: String?
    private let method: HTTPMethod
    private let contentType: String
    private let distinctPath: (prefix: String, separator: String)
    private var stats = ConnectionStats()
    private var counter = 0
    private var sentAt: UInt64 = 0
    private var status = 0
    private var done = false
    /// The leaf body of PUTs (allocated once).
    private var leaf: ByteBuffer?

    init(connection: Int, port: Int, request: LoadRequest, deadline: UInt64, promise: EventLoopPromise<ConnectionStats>) {
        self.connection = connection
        self.port = port
        self.request = request
        self.deadline = deadline
        self.promise = promise
        authorization = request.authorization(writer: connection)
        method = HTTPMethod(rawValue: request.method)
        contentType = request.kind == .post ? request.contentType : "application/json"
        distinctPath = request.distinctPath(writerTag: "c")
        stats.latencies.reserveCapacity(65536)
    }

    func channelActive(context: ChannelHandlerContext) {
        if request.isPut { leaf = context.channel.allocator.buffer(string: LoadRequest.leafBody) }
        sendNext(context: context)
    }

    private func sendNext(context: ChannelHandlerContext) {
        counter += 1
        let uri =
            request.kind == .putDistinct
            ? "\(distinctPath.prefix)\(connection)\(distinctPath.separator)\(counter).json?ns=\(request.namespace)"
            : request.fixedTarget
        let body: ByteBuffer? =
            request.kind == .post
            ? request.body(writer: connection, n: counter).map { context.channel.allocator.buffer(string: $0) } : leaf
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        if let authorization { head.headers.add(name: "Authorization", value: authorization) }
        if request.kind == .redirect { head.headers.add(name: "User-Agent", value: LoadRequest.desktopUserAgent) }
        if let body {
            head.headers.add(name: "Content-Type", value: contentType)
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        sentAt = nowNanos()
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            status = Int(h.status.code)
        case .body:
            break
        case .end:
            let now = nowNanos()
            stats.latencies.append(now - sentAt)
            if (200..<300).contains(status) || (request.kind == .redirect && status == 302) { stats.ok += 1 } else { stats.non2xx += 1 }
            if now < deadline && request.delayMs > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(request.delayMs))) { [self] in
                    if !done { sendNext(context: context) }
                }
            } else if now < deadline {
                sendNext(context: context)
            } else {
                finish(context: context)
            }
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        stats.finishedAt = nowNanos()
        promise.succeed(stats)
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        stats.errors += 1
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            stats.errors += 1
            done = true
            stats.finishedAt = nowNanos()
            promise.succeed(stats)
        }
    }
}

enum NIOLoadDriver {
    static func run(port: Int, request: LoadRequest, connections: Int, threads: Int, seconds: Int) throws -> LoadResult {
        try run(ports: [port], request: request, connections: connections, threads: threads, seconds: seconds)
    }

    /// Connection `i` goes to `ports[i % ports.count]`: the same total load spread evenly over several nodes.
    static func run(ports: [Int], request: LoadRequest, connections: Int, threads: Int, seconds: Int) throws -> LoadResult {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        defer { try? group.syncShutdownGracefully() }
        let start = nowNanos()
        let deadline = start + UInt64(seconds) * 1_000_000_000
        var futures: [EventLoopFuture<ConnectionStats>] = []
        for i in 0..<connections {
            let port = ports[i % ports.count]
            let loop = group.next()
            let promise = loop.makePromise(of: ConnectionStats.self)
            futures.append(promise.futureResult)
            ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            LoadConnectionHandler(connection: i, port: port, request: request, deadline: deadline, promise: promise))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .whenFailure { promise.fail($0) }
        }
        var samples = Samples()
        var ok = 0, non2xx = 0, errors = 0
        var end = start
        for f in futures {
            switch Result(catching: { try f.wait() }) {
            case .success(let s):
                samples.add(contentsOf: s.latencies)
                ok += s.ok
                non2xx += s.non2xx
                errors += s.errors
                end = max(end, s.finishedAt)
            case .failure:
                errors += 1
            }
        }
        return LoadResult(
            generator: "in-process SwiftNIO (\(threads) event loops)", completed: ok + non2xx, ok: ok, non2xx: non2xx,
            socketErrors: errors, seconds: Double(end - start) / 1e9,
            p50Ms: samples.percentileMs(50), p90Ms: samples.percentileMs(90), p99Ms: samples.percentileMs(99),
            maxMs: samples.percentileMs(100))
    }
}
