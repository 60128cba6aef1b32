import Foundation
import HearthAuth
import HearthCore
import HearthStore
import HearthWire

/// Identity Toolkit and Secure Token on the server's port, called as client SDKs do: no `Authorization` header, an API
/// key in the query (any non-empty key is accepted).
enum AuthAPI {
    static let key = "hearth-bench"
    static let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=\(key)"
    static let signIn = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=\(key)"
    static let token = "/securetoken.googleapis.com/v1/token?key=\(key)"
    static let formType = "application/x-www-form-urlencoded"

    /// signUp / signInWithPassword body (the bench's emails and passwords need no JSON escaping).
    static func credentials(email: String, password: String) -> String {
        #"{"email":"\#(email)","password":"\#(password)","returnSecureToken":true}"#
    }

    /// Secure Token body (refresh tokens are base64url, safe in a form).
    static func refresh(_ refreshToken: String) -> String { "grant_type=refresh_token&refresh_token=\(refreshToken)" }
}

/// An email/password user created through the server's signUp.
struct SeededUser: Sendable {
    var email: String
    var password: String
    var idToken: String
    var refreshToken: String
}

/// One in-process verification run (see `Scenarios.timeVerification`).
struct VerifyRun {
    var threads: Int
    var ok: Int
    var failed: Int
    var seconds: Double
    /// Cores the bench used during the run (≈ threads when nothing else competes).
    var benchCores: Double
    var otherCores: Double?
    var perSecond: Double { seconds > 0 ? Double(ok) / seconds : 0 }
}

extension Scenarios {
    /// The project of the in-process `AuthService`s.
    static let benchProject = "hearth-bench"

    // MARK: helpers

    /// Signs up `count` email/password users over HTTP, as a client would, `workers` at a time (each costs the server one
    /// scrypt hash on its per-core hashing queues). Returns them in order and the seconds it took.
    static func signUpUsers(port: Int, prefix: String, count: Int, workers: Int = 4) throws -> (users: [SeededUser], seconds: Double) {
        guard count > 0 else { return ([], 0) }
        let t0 = nowNanos()
        let lanes = min(workers, count)
        let found = Locked<[Int: SeededUser]>([:])
        let failure = Locked<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            do {
                let conn = try HTTPConnection(port: port)
                for i in stride(from: lane, to: count, by: lanes) {
                    if failure.withLock({ $0 }) != nil { return }
                    let email = "\(prefix)-\(i)@bench.example"
                    let password = "password-\(prefix)-\(i)"
                    let r = try conn.expect(
                        200, "POST", AuthAPI.signUp, body: AuthAPI.credentials(email: email, password: password),
                        authorization: nil, "signUp of \(email)")
                    guard let obj = (try? r.json()) as? [String: Any], let id = obj["idToken"] as? String,
                        let refresh = obj["refreshToken"] as? String, !id.isEmpty, !refresh.isEmpty
                    else { throw BenchError("signUp of \(email) returned no tokens: \(r.text.prefix(300))") }
                    let user = SeededUser(email: email, password: password, idToken: id, refreshToken: refresh)
                    found.withLock { $0[i] = user }
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = "\(error)" } }
            }
        }
        if let f = failure.withLock({ $0 }) { throw BenchError(f) }
        let all = found.withLock { $0 }
        let users = (0..<count).compactMap { all[$0] }
        guard users.count == count else { throw BenchError("signed up \(users.count) of \(count) users") }
        return (users, Double(nowNanos() - t0) / 1e9)
    }

    /// An in-process `AuthService` (memory store, a new RSA-2048 key, a cheap hasher so sign-ups cost only the token).
    static func inProcessAuth() throws -> (service: AuthService, key: SigningKey) {
        let key = try SigningKey.generate()
        let service = AuthService(
            projectID: benchProject, store: MemoryAccountStore(), key: key, hasher: PasswordHasher(rounds: 1 << 4))
        return (service, key)
    }

    /// Signs up `count` users on `service` and returns their ID tokens (distinct users, so distinct tokens).
    static func mintIDTokens(_ service: AuthService, count: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for i in 0..<count {
                group.addTask {
                    let request = IdentityToolkit.SignUpRequest(
                        email: "mint-\(i)@bench.example", password: "password-\(i)", returnSecureToken: true)
                    return (i, try await service.signUp(request, privileged: false).idToken)
                }
            }
            var tokens = [String](repeating: "", count: count)
            for try await (i, token) in group {
                guard let token, !token.isEmpty else { throw BenchError("in-process signUp returned no idToken") }
                tokens[i] = token
            }
            return tokens
        }
    }

    /// `token` with one character of its signature changed (a signature that must not verify).
    static func tampered(_ token: String) -> String {
        var chars = Array(token)
        guard let dot = chars.lastIndex(of: "."), dot + 10 < chars.count else { return token + "x" }
        let i = dot + 10
        chars[i] = chars[i] == "A" ? "B" : "A"
        return String(chars)
    }

    /// Calls `service.verifiedClaims` over `tokens` (cycled; thread t starts at a different one) on `threads` threads
    /// until `seconds` have passed.
    static func timeVerification(
        _ service: AuthService, tokens: [String], threads: Int, seconds: Double, server: HearthServerProcess
    ) -> VerifyRun {
        let counts = Locked<[(ok: Int, failed: Int, end: UInt64)]>([])
        let finished = DispatchGroup()
        let machine0 = machineBusyCPUSeconds(), server0 = server.cpuSeconds, own0 = cpuSeconds(children: false)
        let start = nowNanos()
        let deadline = start + UInt64(seconds * 1e9)
        // Bounded by count too (far above what a core does in `seconds`).
        let maxPerThread = Int(seconds * 2_000_000)
        for t in 0..<threads {
            finished.enter()
            let thread = Thread {
                var ok = 0, failed = 0
                var i = t * 7919
                while ok + failed < maxPerThread {
                    for _ in 0..<32 {
                        if service.verifiedClaims(tokens[i % tokens.count]) != nil { ok += 1 } else { failed += 1 }
                        i += 1
                    }
                    if nowNanos() >= deadline { break }
                }
                let end = nowNanos()
                counts.withLock { $0.append((ok, failed, end)) }
                finished.leave()
            }
            thread.start()
        }
        finished.wait()
        let all = counts.withLock { $0 }
        let wall = Double((all.map(\.end).max() ?? start) - start) / 1e9
        let own = cpuSeconds(children: false) - own0
        var others: Double?
        if let m0 = machine0, let m1 = machineBusyCPUSeconds(), let s0 = server0, let s1 = server.cpuSeconds {
            others = max(0, (m1 - m0 - (s1 - s0) - own) / wall)
        }
        return VerifyRun(
            threads: threads, ok: all.reduce(0) { $0 + $1.ok }, failed: all.reduce(0) { $0 + $1.failed }, seconds: wall,
            benchCores: own / wall, otherCores: others)
    }

    /// Times `body` `count` times (after `warmUp` untimed calls), stopping early after `seconds`.
    static func timeRepeatedly(count: Int, warmUp: Int = 0, seconds: Double, _ body: () throws -> Void) rethrows -> Samples {
        for _ in 0..<warmUp { try body() }
        var samples = Samples()
        let deadline = nowNanos() + UInt64(seconds * 1e9)
        for _ in 0..<count {
            let t = nowNanos()
            try body()
            samples.add(nowNanos() - t)
            if nowNanos() > deadline { break }
        }
        return samples
    }

    /// Rows for a load that ran beside another one: only its own rate, latency and errors (the CPU rows of the shared
    /// window come from the other).
    static func errorRows(_ name: String, _ r: LoadResult, what: String) -> [MetricRow] {
        [
            MetricRow(name, "\(what): non-2xx responses", Double(r.non2xx), target: .equals(0)),
            MetricRow(name, "\(what): socket errors/timeouts", Double(r.socketErrors), target: .equals(0)),
        ]
    }

    // MARK: auth-verify

    /// auth-verify: ID-token verification in-process (no HTTP), on one thread and on every core, over distinct tokens;
    /// then what the database sees over HTTP: a GET of one leaf with a Bearer ID token under `.read: auth != null`,
    /// interleaved with the same GET as admin (the server caches verified tokens, so this is the cached path).
    static func authVerify(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "auth-verify"
        let (service, _) = try inProcessAuth()
        let mintStart = nowNanos()
        let tokens = try runBlocking { try await mintIDTokens(service, count: c.authTokens) }
        let mintSeconds = Double(nowNanos() - mintStart) / 1e9
        // Every token verifies, and a changed signature does not (the loop below times real checks).
        let bad = tokens.filter { service.verifiedClaims($0) == nil }.count
        guard bad == 0 else { throw BenchError("\(bad) of \(tokens.count) freshly minted tokens did not verify") }
        guard service.verifiedClaims(tampered(tokens[0])) == nil else {
            throw BenchError("a token with a changed signature verified")
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let seconds = 3.0
        let one = timeVerification(service, tokens: tokens, threads: 1, seconds: seconds, server: server)
        let all = timeVerification(service, tokens: tokens, threads: cores, seconds: seconds, server: server)
        func note(_ r: VerifyRun) -> String {
            "\(r.ok) in \(formatNumber(r.seconds)) s = \(formatNumber(1e6 * r.seconds * Double(r.threads) / Double(max(r.ok, 1)))) µs "
                + "per verification per thread; bench used \(formatNumber(r.benchCores)) cores, other processes "
                + "\(formatNumber(r.otherCores ?? .nan)) cores"
        }
        var rows = [
            MetricRow(
                name, "in-process: distinct ID tokens minted", Double(tokens.count),
                note: "AuthService + MemoryAccountStore + new RSA-2048 key, signUp with a 2^4 scrypt hasher; "
                    + "\(formatNumber(mintSeconds)) s; a changed signature is refused"),
            MetricRow(name, "in-process verifications/s, 1 thread", one.perSecond, unit: "/s", note: note(one)),
            MetricRow(
                name, "in-process verifications/s, \(cores) threads (all cores)", all.perSecond, unit: "/s",
                target: .atLeast(30_000), note: note(all)),
            MetricRow(name, "in-process failed verifications", Double(one.failed + all.failed), target: .equals(0)),
            MetricRow(
                name, "CPU used by other processes during in-process runs", max(one.otherCores ?? 0, all.otherCores ?? 0),
                unit: "cores", note: "the larger of the two runs; should be ~0"),
        ]

        // Over HTTP: the database's view.
        let ns = "authverify"
        let conn = try HTTPConnection(port: server.port)
        try conn.expect(200, "PUT", "/.settings/rules.json?ns=\(ns)", body: #"{"rules":{".read":"auth != null"}}"#, "installing rules")
        let adminGet = LoadRequest.get(namespace: ns, name: "get-admin")
        try conn.expect(200, "PUT", "/bench/get/leaf.json?ns=\(ns)", body: LoadRequest.leafBody, "seed PUT")
        let (users, _) = try signUpUsers(port: server.port, prefix: "verify", count: 1)
        let token = users[0].idToken
        let userGet = LoadRequest.get(namespace: ns, credential: .bearer(token), name: "get-idtoken")
        let check = try conn.expect(200, "GET", userGet.fixedTarget, authorization: "Bearer " + token, "GET with the ID token")
        guard check.text == LoadRequest.leafBody else { throw BenchError("GET with the ID token returned \(check.text)") }
        try conn.expect(401, "GET", userGet.fixedTarget, authorization: nil, "GET signed out under auth != null")
        var admin: [LoadResult] = []
        var user: [LoadResult] = []
        for _ in 0..<2 {
            admin.append(try load(c, server: server, request: adminGet))
            user.append(try load(c, server: server, request: userGet))
        }
        func rate(_ runs: [LoadResult]) -> Double {
            let s = runs.reduce(0.0) { $0 + $1.seconds }
            return s > 0 ? Double(runs.reduce(0) { $0 + $1.ok }) / s : 0
        }
        func perRound(_ runs: [LoadResult]) -> String {
            runs.map {
                "\(formatNumber($0.okPerSecond))/s (p50 \(formatNumber($0.p50Ms ?? .nan)) / p99 \(formatNumber($0.p99Ms ?? .nan)) ms, "
                    + "server \(formatNumber($0.serverCores ?? .nan)) cores, \(formatNumber($0.serverMicrosPerOK ?? .nan)) µs CPU/GET)"
            }.joined(separator: "; ")
        }
        let userRate = rate(user), adminRate = rate(admin)
        let generator = user[0].generator
        rows += [
            MetricRow(
                name, "HTTP GET leaf with Bearer ID token (.read: auth != null) reads/s", userRate, unit: "req/s",
                note: "\(generator), \(c.connections) conns, 2 rounds of \(c.seconds) s interleaved with admin: " + perRound(user)),
            MetricRow(
                name, "HTTP GET leaf as admin reads/s (same namespace)", adminRate, unit: "req/s",
                note: "rounds: " + perRound(admin)),
            MetricRow(
                name, "HTTP ID-token / admin reads/s", adminRate > 0 ? userRate / adminRate : nil,
                note: "verified tokens are cached by the server, so this is a cache lookup per request, not an RSA check"),
            MetricRow(
                name, "HTTP non-2xx responses (both)", Double((user + admin).reduce(0) { $0 + $1.non2xx }), target: .equals(0)),
            MetricRow(
                name, "HTTP socket errors/timeouts (both)", Double((user + admin).reduce(0) { $0 + $1.socketErrors }),
                target: .equals(0)),
            MetricRow(
                name, "CPU used by other processes during HTTP runs (max)", (user + admin).compactMap(\.otherCores).max(),
                unit: "cores", note: "load average now \(loadAverage())"),
        ]
        return rows
    }

    // MARK: auth-refresh

    /// auth-refresh: Secure Token refreshes over HTTP, cycling the refresh tokens of `refreshUsers` users; each signs a
    /// new RS256 ID token, so the in-process cost of one `SigningKey.sign` is measured and reported beside it.
    static func authRefresh(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "auth-refresh"
        // In-process: one RS256 signature over a real ID-token payload.
        let (service, key) = try inProcessAuth()
        let sample = try runBlocking { try await mintIDTokens(service, count: 1) }[0]
        let parts = sample.split(separator: ".")
        guard parts.count == 3, let payloadBytes = Base64URL.decode(parts[1]), let payload = try? JSONValue.parse(payloadBytes) else {
            throw BenchError("cannot read the payload of an in-process ID token")
        }
        var signTimes = try timeRepeatedly(count: 2000, warmUp: 20, seconds: 2) { _ = try key.sign(payload) }
        let signMicros = (signTimes.meanMs ?? .nan) * 1000
        let cores = ProcessInfo.processInfo.activeProcessorCount

        let (users, seedSeconds) = try signUpUsers(port: server.port, prefix: "refresh", count: c.refreshUsers)
        let request = LoadRequest.post(
            AuthAPI.token, bodies: users.map { AuthAPI.refresh($0.refreshToken) }, contentType: AuthAPI.formType, name: "refresh")
        // One refresh as a client sends it: a new ID token comes back, the refresh token stays.
        let check = try HTTPConnection(port: server.port).expect(
            200, "POST", AuthAPI.token, body: request.bodies[0], authorization: nil, contentType: AuthAPI.formType, "refresh")
        guard let obj = (try? check.json()) as? [String: Any], let idToken = obj["id_token"] as? String,
            idToken.split(separator: ".").count == 3, idToken != users[0].idToken,
            obj["refresh_token"] as? String == users[0].refreshToken
        else { throw BenchError("refresh answered \(check.text.prefix(300))") }

        let r = try load(c, server: server, request: request)
        var rows = loadRows(
            name, r, rateMetric: "refreshes/s (\(c.connections) conns, \(users.count) refresh tokens)", target: .atLeast(5_000))
        let perRefresh = r.serverMicrosPerOK
        rows.insert(
            MetricRow(
                name, "in-process SigningKey.sign (RS256, RSA-2048), 1 thread", signMicros, unit: "µs",
                note: "mean of \(signTimes.count); p50 \(formatNumber((signTimes.percentileMs(50) ?? .nan) * 1000)) µs, "
                    + "p99 \(formatNumber((signTimes.percentileMs(99) ?? .nan) * 1000)) µs; signing alone caps refreshes at "
                    + "\(formatNumber(1e6 / signMicros))/s per core, \(formatNumber(Double(cores) * 1e6 / signMicros))/s on "
                    + "\(cores) cores"),
            at: 0)
        rows.insert(
            MetricRow(name, "users seeded via signUp", Double(users.count), note: "\(formatNumber(seedSeconds)) s (one scrypt hash each)"),
            at: 1)
        rows.append(
            MetricRow(
                name, "server CPU per refresh", perRefresh, unit: "µs",
                note: perRefresh.map {
                    "of which one sign ≈ \(formatNumber(signMicros)) µs (\(formatNumber(100 * signMicros / $0)) %); "
                        + "at this cost \(cores) cores give at most \(formatNumber(Double(cores) * 1e6 / $0)) refreshes/s"
                }))
        return rows
    }

    // MARK: auth-signin

    /// auth-signin: the get-small read load alone, then the same load while `signinClients` clients sign in with
    /// passwords in a loop (each waiting `signinDelayMs` before each request; 0: back to back).
    static func authSignin(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "auth-signin"
        // In-process: what one password hash costs here (the server's hasher, the same parameters).
        let hasher = PasswordHasher(rounds: 1 << (c.passwordCost ?? 14))
        let hashTimes = try timeRepeatedly(count: 3, warmUp: 1, seconds: 5) {
            _ = try runBlocking { try await hasher.hash("bench-password") }
        }
        let hashMs = hashTimes.meanMs ?? .nan
        let cores = ProcessInfo.processInfo.activeProcessorCount

        let (users, seedSeconds) = try signUpUsers(port: server.port, prefix: "signin", count: c.signinUsers)
        let ns = "authsignin"
        let read = LoadRequest.get(namespace: ns, name: "signin-reads")
        var signIn = LoadRequest.post(
            AuthAPI.signIn, bodies: users.map { AuthAPI.credentials(email: $0.email, password: $0.password) },
            contentType: "application/json", name: "signin")
        signIn.delayMs = c.signinDelayMs
        let conn = try HTTPConnection(port: server.port)
        try conn.expect(200, "PUT", "/bench/get/leaf.json?ns=\(ns)", body: LoadRequest.leafBody, "seed PUT")
        let got = try conn.expect(200, "GET", read.fixedTarget, "GET of the seeded leaf")
        guard got.text == LoadRequest.leafBody else { throw BenchError("GET returned \(got.text)") }
        let signedIn = try conn.expect(200, "POST", AuthAPI.signIn, body: signIn.bodies[0], authorization: nil, "signInWithPassword")
        guard let obj = (try? signedIn.json()) as? [String: Any], obj["idToken"] is String, obj["refreshToken"] is String else {
            throw BenchError("signInWithPassword answered \(signedIn.text.prefix(300))")
        }

        let readSpec = LoadSpec(request: read, connections: c.signinReadConnections, threads: c.loadThreads)
        let alone = try loadTogether(c, server: server, [readSpec])[0]
        let both = try loadTogether(
            c, server: server, [readSpec, LoadSpec(request: signIn, connections: c.signinClients, threads: 1)])
        let during = both[0], signins = both[1]
        let ratio = alone.okPerSecond > 0 ? during.okPerSecond / alone.okPerSecond : nil
        let scryptCores = signins.okPerSecond * hashMs / 1000
        var rows = [
            MetricRow(
                name, "in-process scrypt hash (N=2^\(c.passwordCost ?? 14), r=8, p=1)", hashMs, unit: "ms",
                note: "mean of \(hashTimes.count); the server hashes on \(cores) serial queues (one per core), so sign-ins "
                    + "are capped at \(formatNumber(Double(cores) * 1000 / hashMs))/s with the cores to themselves; "
                    + "20 sign-ins/s need \(formatNumber(20 * hashMs / 1000)) cores of scrypt"),
            MetricRow(name, "users seeded via signUp", Double(users.count), note: "\(formatNumber(seedSeconds)) s"),
        ]
        rows += loadRows(
            name, alone, rateMetric: "reads/s alone (\(c.signinReadConnections) conns, admin GET of one leaf)", target: nil,
            prefix: "alone: ")
        rows += loadRows(name, during, rateMetric: "reads/s during sign-ins", target: nil, prefix: "during: ")
        rows += [
            MetricRow(
                name, "reads during / reads alone", ratio, target: .atLeast(0.90),
                note: "\(formatNumber(during.okPerSecond)) / \(formatNumber(alone.okPerSecond)) reads/s"),
            MetricRow(
                name,
                "sign-ins/s (\(c.signinClients) clients, \(users.count) users"
                    + (c.signinDelayMs > 0 ? ", \(c.signinDelayMs) ms before each" : "") + ")",
                signins.okPerSecond, unit: "/s",
                target: .atLeast(20),
                note: "\(signins.generator), \(signins.ok) ok in \(formatNumber(signins.seconds)) s; ≈ "
                    + "\(formatNumber(scryptCores)) cores of scrypt at \(formatNumber(hashMs)) ms per hash"),
            MetricRow(name, "sign-in latency p50", signins.p50Ms, unit: "ms"),
            MetricRow(name, "sign-in latency p99", signins.p99Ms, unit: "ms"),
        ]
        rows += errorRows(name, signins, what: "sign-ins")
        return rows
    }
}
