import AsyncHTTPClient
import Foundation
import HearthCore
import HearthTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// `hearth serve --postgres` processes: a node killed under write load, and PostgreSQL restarted
/// under load. Every acknowledged write is there afterwards, and listeners on the surviving nodes
/// carry on.
@Suite(
    "Cluster processes on PostgreSQL", .serialized,
    .enabled(if: TestCluster.url != nil, "set HEARTH_TEST_POSTGRES=postgres://… to run the cluster tests (.ci/run does)"))
struct ClusterProcessTests {
    final class Acknowledged: Sendable {
        let keys = Mutex<[Int]>([])
        /// Set to end the load.
        let stop = Atomic(false)
    }

    /// Writes `/load/k<i>` on `port` from 8 tasks until `stop` is set; records the writes answered 204.
    static func writeLoad(port: Int, client: HTTPClient, from start: Int, acknowledged: Acknowledged) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var i = start + worker
                    while !acknowledged.stop.load(ordering: .relaxed) {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/load/k\(i).json?print=silent")
                        request.method = .PUT
                        request.headers.add(name: "Authorization", value: "Bearer owner")
                        request.body = .bytes(ByteBuffer(string: "\(i)"))
                        if let response = try? await client.execute(request, timeout: .seconds(5)), response.status == .noContent {
                            acknowledged.keys.withLock { $0.append(i) }
                        } else {
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                        i += 8
                    }
                }
            }
        }
    }

    /// The keys under `/load` as the node on `port` reads them.
    static func stored(_ node: HearthProcess) async throws -> [String: Int] {
        let (status, body) = try await node.request(.GET, "/load.json")
        #expect(status == 200)
        return (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Int]) ?? [:]
    }

    /// A project name of its own, so the default namespace starts empty in a shared database.
    static func freshProject() -> String { "p" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased() }

    @Test func aNodeKilledUnderWriteLoadLosesNoAcknowledgedWriteAndTheOthersCarryOn() async throws {
        let options = ["--postgres", try #require(TestCluster.url), "--project", Self.freshProject()]
        let data = temporaryDataFolder()
        let first = try await HearthProcess.serve(data: data, extra: options)
        let second = try await HearthProcess.serve(data: data, extra: options)
        let watcher = HTTPClient(eventLoopGroupProvider: .singleton)
        let writer = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let stream = try await EventStream(watcher, HTTPClientRequest(url: "http://127.0.0.1:\(second.port)/load.json", bearer: "owner"))
            let acknowledged = Acknowledged()
            async let load: Void = Self.writeLoad(port: first.port, client: writer, from: 0, acknowledged: acknowledged)
            // Killed under load: once it has acknowledged a few dozen writes (however long a busy machine takes).
            let started = ContinuousClock.now
            while acknowledged.keys.withLock({ $0.count }) < 30, ContinuousClock.now - started < .seconds(30) {
                try await Task.sleep(for: .milliseconds(20))
            }
            first.signal(SIGKILL)
            _ = try await first.exitCode()
            try await Task.sleep(for: .milliseconds(200))
            acknowledged.stop.store(true, ordering: .relaxed)
            await load
            let acked = acknowledged.keys.withLock { $0 }
            #expect(acked.count > 20, "the load wrote too little to mean anything: \(acked.count)")
            let stored = try await Self.stored(second)
            let missing = acked.filter { stored["k\($0)"] != $0 }
            #expect(missing.isEmpty, "acknowledged but missing: \(missing.prefix(10))")
            // The surviving node's listener still follows writes (its own now).
            let before = stream.received.count
            #expect(try await second.request(.PUT, "/load/after.json", body: "1").0 == 200)
            let events = try await stream.waitFor(before + 1)
            #expect(events.last?.contains(#""path":"/after""#) == true)
            stream.cancel()
        } catch {
            try? await watcher.shutdown()
            try? await writer.shutdown()
            throw error
        }
        try? await watcher.shutdown()
        try? await writer.shutdown()
        second.signal(SIGTERM)
        #expect(try await second.exitCode() == 0)
    }

    /// What nodes keep in the shared data folder rather than in PostgreSQL: storage rules installed through one
    /// node, and a signing key added by `hearth auth rotate-key`, are in force on every node without a restart.
    @Test func storageRulesAndANewSigningKeyReachEveryNodeWithoutARestart() async throws {
        let options = ["--postgres", try #require(TestCluster.url), "--project", Self.freshProject()]
        let data = temporaryDataFolder()
        let first = try await HearthProcess.serve(data: data, extra: options)
        let second = try await HearthProcess.serve(data: data, extra: options)
        defer {
            for node in [first, second] { node.signal(SIGTERM) }
        }
        let rules = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{path=**} {\n      allow read: if true;\n    }\n  }\n}\n"
        let body = #"{"rules":{"files":[{"name":"storage.rules","content":"# + String(decoding: JSONValue.string(rules).jsonBytes, as: UTF8.self) + "}]}}"
        #expect(try await first.request(.PUT, "/internal/setRules", body: body).0 == 200)
        var seen = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while !seen.contains("allow read: if true"), ContinuousClock.now < deadline {
            seen = try await second.request(.GET, "/internal/getRules").1
            if !seen.contains("allow read: if true") { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(seen.contains("allow read: if true"), "node 2 still serves other storage rules: \(seen)")

        // A new key: both nodes publish it, and a token the first node signs with it is accepted by the second.
        func kids(_ node: HearthProcess) async throws -> Set<String> {
            let (status, text) = try await node.request(.GET, "/.well-known/jwks.json")
            #expect(status == 200)
            guard case .array(let keys)? = try JSONValue.parse(Array(text.utf8))["keys"] else { return [] }
            return Set(keys.compactMap { $0["kid"]?.stringValue })
        }
        let before = try await kids(second)
        let firstBefore = try await kids(first)
        #expect(before.count == 1 && before == firstBefore)
        let rotate = try HearthProcess(["auth", "rotate-key", "--data", data])
        #expect(try await rotate.exitCode() == 0)
        var after: Set<String> = []
        let rotated = ContinuousClock.now + .seconds(10)
        while after.count < 2, ContinuousClock.now < rotated {
            after = try await kids(second).intersection(try await kids(first))
            if after.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(after.count == 2 && after.isSuperset(of: before), "both nodes publish the old and the new key: \(after)")
        let signUp = try await first.request(.POST, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: "{}", token: nil)
        #expect(signUp.0 == 200, "\(signUp.1)")
        let idToken = try JSONValue.parse(Array(signUp.1.utf8))["idToken"]?.stringValue ?? ""
        let header = try JSONValue.parse(Base64URLForTests.decode(String(idToken.prefix { $0 != "." })))
        let kid = header["kid"]?.stringValue ?? ""
        #expect(after.subtracting(before) == [kid], "the first node signs with the new key")
        let lookup = try await second.request(
            .POST, "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", body: #"{"idToken":"\#(idToken)"}"#, token: nil)
        #expect(lookup.0 == 200, "the second node accepts the new key's token: \(lookup.1)")
        for node in [first, second] {
            node.signal(SIGTERM)
            #expect(try await node.exitCode() == 0)
        }
    }

    @Test(.enabled(if: PostgresSandbox.available, "needs Debian's PostgreSQL binaries (scripts/postgres-sandbox)"))
    func postgresRestartedUnderLoadLosesNoAcknowledgedWriteAndListenersCatchUp() async throws {
        // Below the ephemeral range (32768-60999 on Linux), so no client socket of another test can hold the port.
        let sandbox = try PostgresSandbox.start(port: 25466)
        defer { sandbox.stop() }
        let data = temporaryDataFolder()
        let writerNode = try await HearthProcess.serve(data: data, extra: ["--postgres", sandbox.url])
        let watcherNode = try await HearthProcess.serve(data: data, extra: ["--postgres", sandbox.url])
        let watcher = HTTPClient(eventLoopGroupProvider: .singleton)
        let writer = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let stream = try await EventStream(watcher, HTTPClientRequest(url: "http://127.0.0.1:\(watcherNode.port)/load.json", bearer: "owner"))
            let acknowledged = Acknowledged()
            async let load: Void = Self.writeLoad(port: writerNode.port, client: writer, from: 0, acknowledged: acknowledged)
            try await Task.sleep(for: .milliseconds(500))
            try sandbox.restart()
            // Writes fail while it is down and succeed again once the nodes reconnected. Usually within a second or
            // two; in 2 of ~17 runs on a busy box, a write waited past 20 s (most likely the 60 s statement deadline) (root cause
            // not found yet, see docs/scaling.md): the promise checked is that writes resume, bounded by that deadline.
            let restarted = ContinuousClock.now
            let countAfterRestart = acknowledged.keys.withLock { $0.count }
            let deadline = restarted + .seconds(80)
            while acknowledged.keys.withLock({ $0.count }) < countAfterRestart + 20, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let resumedAfter = ContinuousClock.now - restarted
            print("PostgreSQL restarted under load: 20 more writes acknowledged \(resumedAfter) after the restart")
            acknowledged.stop.store(true, ordering: .relaxed)
            await load
            let acked = acknowledged.keys.withLock { $0 }
            #expect(acked.count >= countAfterRestart + 20, "writes did not resume within 80 s of the restart")
            let stored = try await Self.stored(writerNode)
            let missing = acked.filter { stored["k\($0)"] != $0 }
            #expect(missing.isEmpty, "acknowledged but missing: \(missing.prefix(10))")
            // The other node's listener saw every write, including those committed while its feed reconnected.
            let events = try await stream.waitFor(1 + stored.count)
            let seenKeys = Set(events.compactMap { event in event.firstRange(of: #/"path":"\/(k\d+)"/#).map { String(event[$0].dropFirst(9).dropLast()) } })
            #expect(seenKeys.count == stored.count, "the listener saw \(seenKeys.count) of \(stored.count) writes")
            stream.cancel()
        } catch {
            try? await watcher.shutdown()
            try? await writer.shutdown()
            throw error
        }
        try? await watcher.shutdown()
        try? await writer.shutdown()
        for node in [writerNode, watcherNode] {
            node.signal(SIGTERM)
            #expect(try await node.exitCode(within: 70) == 0)
        }
    }
}

extension HTTPClientRequest {
    init(url: String, bearer: String) {
        self.init(url: url)
        headers.add(name: "Authorization", value: "Bearer \(bearer)")
    }
}

/// A throwaway PostgreSQL of the test's own (scripts/postgres-sandbox), for tests that stop and start it.
struct PostgresSandbox {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-sandbox").path
    static var available: Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.isEmpty == false
    }

    let folder: String
    let port: Int
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    static func start(port: Int) throws -> PostgresSandbox {
        let folder = NSTemporaryDirectory() + "hearth-pg-" + UUID().uuidString
        try run(["start", folder, "\(port)"])
        return PostgresSandbox(folder: folder, port: port)
    }

    func restart() throws {
        try Self.run(["stop", folder])
        try Self.run(["start", folder, "\(port)"])
    }

    func stop() {
        try? Self.run(["stop", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SandboxError(arguments: arguments, status: process.terminationStatus)
        }
    }
}

struct SandboxError: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var description: String { "postgres-sandbox \(arguments.joined(separator: " ")) failed (\(status))" }
}

/// Base64url without padding, as JWTs use it.
enum Base64URLForTests {
    static func decode(_ text: String) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init) ?? []
    }
}
