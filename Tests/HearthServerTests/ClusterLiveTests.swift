import AsyncHTTPClient
import Foundation
import HearthAuth
import HearthFunctions
import HearthPostgres
import HearthServer
import HearthTesting
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// Nodes of one cluster: each its own `PostgresServer` (connections) and change feed, as separate
/// processes would have, all on the database of `HEARTH_TEST_POSTGRES`, serving one fresh namespace.
struct TestCluster {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    let namespace = "c_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    private(set) var nodes: [LiveServer] = []
    private(set) var ports: [Int] = []
    private(set) var feeds: [PostgresChangeFeed] = []
    private var servers: [PostgresServer] = []

    /// Starts `count` nodes; `feed` makes each node's change feed (the default one by default); a node in
    /// `deaf` has none. With `auth`, each serves Identity Toolkit too, for the project named like the
    /// namespace, with accounts and sign-in attempts in PostgreSQL and one signing key, as
    /// `hearth serve --postgres` nodes do. Every node runs `functions`.
    static func start(
        nodes count: Int,
        feed makeFeed: (PostgresServer, Logger) -> PostgresChangeFeed = { PostgresChangeFeed(server: $0, logger: $1) },
        deaf: Set<Int> = [], auth: Bool = false, functions: Functions = Functions()
    ) async throws -> TestCluster {
        var cluster = TestCluster()
        let logger = Logger(label: "cluster-test", factory: { _ in SwiftLogNoOpLogHandler() })
        for index in 0..<count {
            let server = try await PostgresServer(location: PostgresLocation(url: try #require(url)), connections: 8, logger: logger)
            let feed = makeFeed(server, logger)
            cluster.feeds.append(feed)
            let namespace = cluster.namespace
            let service = auth
                ? AuthService(
                    projectID: namespace, store: PostgresAccountStore(server: server, project: namespace),
                    keys: KeyRing(current: AuthRouterTests.key), hasher: PasswordHasher(rounds: 1 << 4),
                    attempts: PostgresAttemptStore(server: server, project: namespace))
                : nil
            // A deaf node has no change feed: it never hears of other nodes' commits or settings.
            let deafNode = deaf.contains(index)
            let node = LiveServer(
                stores: PostgresStoreFactory(server: server, feed: deafNode ? nil : feed), auth: service, functions: functions,
                services: deafNode ? [] : [feed]
            ) { configuration in
                configuration.defaultNamespace = namespace
            }
            cluster.servers.append(server)
            cluster.nodes.append(node)
            cluster.ports.append(try await node.start())
        }
        return cluster
    }

    func stop() async {
        for node in nodes { await node.stop() }
        for server in servers { try? await server.shutdown() }
    }

    func request(_ node: Int, _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = [])
        -> HTTPClientRequest
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(ports[node])\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer owner")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        return request
    }

    /// Sends a request and returns the status, headers and body text.
    func send(_ node: Int, _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = [])
        async throws -> (status: UInt, headers: HTTPHeaders, body: String)
    {
        let response = try await HTTPClient.shared.execute(request(node, method, path, body: body, headers: headers), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (response.status.code, response.headers, text)
    }
}

/// Collects one SSE stream's events (`event:` and `data:` lines) as they arrive.
final class EventStream: Sendable {
    private final class Log: Sendable {
        let events = Mutex<[String]>([])
    }

    private let log = Log()
    private let task: Task<Void, any Error>

    init(_ client: HTTPClient, _ request: HTTPClientRequest) async throws {
        var request = request
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await client.execute(request, timeout: .seconds(120))
        let log = self.log
        task = Task {
            var pending = ""
            for try await chunk in response.body {
                pending += String(buffer: chunk)
                while let end = pending.range(of: "\n\n") {
                    let event = String(pending[..<end.lowerBound])
                    pending.removeSubrange(..<end.upperBound)
                    if !event.hasPrefix("event: keep-alive") { log.events.withLock { $0.append(event) } }
                }
            }
        }
    }

    var received: [String] { log.events.withLock { $0 } }

    /// Waits (up to 20 s) until `count` events arrived; returns them.
    func waitFor(_ count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(20)
        while received.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return received
    }

    func cancel() { task.cancel() }
}

@Suite(
    "Several nodes on one PostgreSQL", .serialized,
    .enabled(if: TestCluster.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the cluster tests (.ci/run does)"))
struct ClusterLiveTests {
    /// Writes from nodes 1 and 3, of every kind, seen by a stream on node 2 exactly as by a stream
    /// on node 1 (a single node's own delivery): same events, same order, nothing twice.
    @Test func streamsOnEveryNodeSeeTheSameEventsInCommitOrder() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let ns = cluster.namespace
            let local = try await EventStream(client, cluster.request(0, .GET, "/rooms.json?ns=\(ns)"))
            let remote = try await EventStream(client, cluster.request(1, .GET, "/rooms.json?ns=\(ns)"))
            let writes: [(Int, HTTPMethod, String, String?)] = [
                (0, .PUT, "/rooms/a.json", #"{"title":"A","n":1}"#),
                (2, .PATCH, "/rooms/a.json", #"{"n":2,"tags":{"x":true}}"#),
                (0, .POST, "/rooms.json", #"{"title":"pushed"}"#),
                (2, .PUT, "/rooms/a/n.json", #"{".sv":{"increment":5}}"#),
                (0, .PATCH, "/.json", #"{"rooms/b/title":"B","rooms/a/tags":null}"#),
                (2, .DELETE, "/rooms/a.json", nil),
                (0, .PUT, "/rooms/b/.priority.json", "7"),
            ]
            for (node, method, path, body) in writes {
                let separator = path.contains("?") ? "&" : "?"
                let answer = try await cluster.send(node, method, path + separator + "ns=\(ns)", body: body)
                #expect(answer.status == 200, "\(method) \(path): \(answer.body)")
            }
            // The initial put, then one event per write.
            let expected = writes.count + 1
            let seenLocally = try await local.waitFor(expected)
            let seenRemotely = try await remote.waitFor(expected)
            #expect(seenLocally.count == expected)
            #expect(seenRemotely == seenLocally)
            // Nothing arrives twice later on.
            try await Task.sleep(for: .milliseconds(300))
            #expect(remote.received.count == expected)
            local.cancel()
            remote.cancel()
        } catch {
            try? await client.shutdown()
            await cluster.stop()
            throw error
        }
        try? await client.shutdown()
        await cluster.stop()
    }

    /// 1,000 increments sent at once, spread over three nodes, all count.
    @Test func concurrentIncrementsOnThreeNodesSumExactly() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        do {
            let ns = cluster.namespace
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<24 {
                    group.addTask {
                        for i in 0..<(1000 / 24 + 1) where worker + 24 * i < 1000 {
                            let answer = try await cluster.send(
                                (worker + i) % 3, .PUT, "/counter.json?ns=\(ns)", body: #"{".sv":{"increment":1}}"#)
                            #expect(answer.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for node in 0..<3 { #expect(try await cluster.send(node, .GET, "/counter.json?ns=\(ns)").body == "1000") }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// Two nodes racing compare-and-set writes on one location: in every round exactly one wins,
    /// the other gets 412 with the winner's value.
    @Test func racingConditionalWritesFromTwoNodesLetExactlyOneWin() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        do {
            let ns = cluster.namespace
            _ = try await cluster.send(0, .PUT, "/slot.json?ns=\(ns)", body: "0")
            for round in 1...20 {
                let read = try await cluster.send(round % 2, .GET, "/slot.json?ns=\(ns)", headers: [("X-Firebase-ETag", "true")])
                let etag = try #require(read.headers.first(name: "ETag"))
                async let first = cluster.send(0, .PUT, "/slot.json?ns=\(ns)", body: "\(round * 10)", headers: [("if-match", etag)])
                async let second = cluster.send(1, .PUT, "/slot.json?ns=\(ns)", body: "\(round * 10 + 1)", headers: [("if-match", etag)])
                let answers = try await [first, second]
                #expect(answers.map(\.status).sorted() == [200, 412], "round \(round): \(answers.map(\.status))")
                let winner = answers.first { $0.status == 200 }?.body
                #expect(answers.first { $0.status == 412 }?.body == winner)
                #expect(try await cluster.send(round % 2, .GET, "/slot.json?ns=\(ns)").body == winner)
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// Ten bad passwords for one email sent over REST to three nodes in turn lock the email on every node, as on one
    /// (each node alone saw three or four).
    @Test func badPasswordsSpreadOverNodesLockTheEmail() async throws {
        let cluster = try await TestCluster.start(nodes: 3, auth: true)
        do {
            let json = [("Content-Type", "application/json")]
            let signUp = try await cluster.send(
                0, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: #"{"email":"spread@x.io","password":"right-one"}"#,
                headers: json)
            #expect(signUp.status == 200, "\(signUp.body)")
            func signIn(_ node: Int, _ password: String) async throws -> (status: UInt, body: String) {
                let answer = try await cluster.send(
                    node, .POST, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                    body: #"{"email":"spread@x.io","password":"\#(password)"}"#, headers: json)
                return (answer.status, answer.body)
            }
            for i in 0..<10 {
                let answer = try await signIn(i % 3, "guess-\(i)")
                #expect(answer.status == 400 && answer.body.contains("INVALID_PASSWORD"), "attempt \(i) on node \(i % 3): \(answer.body)")
            }
            for node in 0..<3 {
                let answer = try await signIn(node, "right-one")
                #expect(answer.status == 400 && answer.body.contains("TOO_MANY_ATTEMPTS_TRY_LATER"), "node \(node): \(answer.body)")
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// Rules published on one node are in force on the others (they hear of it at commit).
    @Test func rulesPublishedOnOneNodeHoldOnTheOthers() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        do {
            let ns = cluster.namespace
            _ = try await cluster.send(1, .PUT, "/open.json?ns=\(ns)", body: "1")
            let anonymous = HTTPClientRequest(url: "http://127.0.0.1:\(cluster.ports[1])/open.json?ns=\(ns)")
            #expect(try await HTTPClient.shared.execute(anonymous, timeout: .seconds(10)).status == .ok)
            let published = try await cluster.send(0, .PUT, "/.settings/rules.json?ns=\(ns)", body: #"{"rules":{".read":false,".write":false}}"#)
            #expect(published.status == 200, "\(published.body)")
            var status = HTTPResponseStatus.ok
            let deadline = ContinuousClock.now + .seconds(5)
            while status == .ok, ContinuousClock.now < deadline {
                status = try await HTTPClient.shared.execute(anonymous, timeout: .seconds(10)).status
                if status == .ok { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == .unauthorized)
            #expect(try await cluster.send(1, .GET, "/.settings/rules.json?ns=\(ns)").body.contains(#"".read":false"#))
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// A node whose listening connection was down while commits it never saw left the change log
    /// sends each stream the whole value again, then carries on with later commits.
    @Test func aNodeThatMissedTrimmedCommitsResyncsItsStreams() async throws {
        let cluster = try await TestCluster.start(nodes: 2) { server, logger in
            PostgresChangeFeed(server: server, retryDelay: .seconds(1), retention: .zero, trimInterval: .seconds(3600), logger: logger)
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let ns = cluster.namespace
            let stream = try await EventStream(client, cluster.request(1, .GET, "/rooms.json?ns=\(ns)"))
            #expect(try await cluster.send(0, .PUT, "/rooms/a.json?ns=\(ns)", body: "1").status == 200)
            _ = try await stream.waitFor(2)
            // Every node's listening connection drops; while they wait to reconnect, node 0 commits and
            // the log is trimmed, so node 1 can never read that commit.
            #expect(try await PostgresTestServer.terminateListeners() > 0)
            #expect(try await cluster.send(0, .PUT, "/rooms/b.json?ns=\(ns)", body: "2").status == 200)
            #expect(try await cluster.feeds[0].trimLog(namespace: ns) > 0)
            let resynced = try await stream.waitFor(3)
            #expect(resynced.count == 3)
            #expect(resynced.last == "event: put\n" + #"data: {"path":"/","data":{"a":1,"b":2}}"#)
            // Later commits reach it as before.
            #expect(try await cluster.send(0, .PUT, "/rooms/c.json?ns=\(ns)", body: "3").status == 200)
            let after = try await stream.waitFor(4)
            #expect(after.count == 4)
            #expect(after.last == "event: put\n" + #"data: {"path":"/c","data":3}"#)
            stream.cancel()
        } catch {
            try? await client.shutdown()
            await cluster.stop()
            throw error
        }
        try? await client.shutdown()
        await cluster.stop()
    }

    /// A node that has not heard of rules another node published (here: never will, it has no feed)
    /// reads the stored rules before refusing a read, a stream, a write or an unindexed query.
    @Test func aNodeStillOnOldRulesChecksTheStoredOnesBeforeRefusing() async throws {
        let cluster = try await TestCluster.start(nodes: 2, deaf: [1])
        do {
            let closed = #"{"rules":{".read":false,".write":false}}"#
            let open = #"{"rules":{".read":true,".write":true,"board":{".indexOn":"score"}}}"#
            func anonymous(_ method: HTTPMethod, _ path: String, body: String? = nil, accept: String? = nil) async throws -> HTTPResponseStatus {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(cluster.ports[1])\(path)")
                request.method = method
                if let body { request.body = .bytes(ByteBuffer(string: body)) }
                if let accept { request.headers.add(name: "Accept", value: accept) }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                if accept == nil { _ = try await response.body.collect(upTo: 1 << 20) }
                return response.status
            }
            let probes: [(String, (String) async throws -> UInt)] = [
                ("read", { ns in try await anonymous(.GET, "/board.json?ns=\(ns)").code }),
                ("stream", { ns in try await anonymous(.GET, "/board.json?ns=\(ns)", accept: "text/event-stream").code }),
                ("write", { ns in try await anonymous(.PUT, "/board/w.json?ns=\(ns)", body: "1").code }),
                ("query", { ns in try await cluster.send(1, .GET, #"/board.json?orderBy="score"&ns="# + ns).status }),
            ]
            for (name, probe) in probes {
                // A database of its own per probe, so each starts on the closed rules on the deaf node.
                let ns = cluster.namespace + name
                #expect(try await cluster.send(0, .PUT, "/.settings/rules.json?ns=\(ns)", body: closed).status == 200)
                let before = try await probe(ns)
                #expect(before == 401 || before == 400, "\(name) under the closed rules: \(before)")
                #expect(try await cluster.send(0, .PUT, "/.settings/rules.json?ns=\(ns)", body: open).status == 200)
                #expect(try await probe(ns) == 200, "\(name) after node 0 published open rules")
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
