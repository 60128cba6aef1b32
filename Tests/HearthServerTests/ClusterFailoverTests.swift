import AsyncHTTPClient
import Foundation
import Hearth
import HearthCore
import HearthTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// A cluster as users run it (`scripts/cluster`: PostgreSQL, `hearth` nodes and nginx in front): an SDK
/// client connected through nginx keeps its listener when the node it is on is killed.
@Suite(
    "SDK clients through nginx when a node dies", .serialized,
    .enabled(if: TestCluster.url != nil && PostgresSandbox.available && ClusterScript.nginxInstalled,
             "needs HEARTH_TEST_POSTGRES, Debian's PostgreSQL and nginx (.ci/run installs them)"))
struct ClusterFailoverTests {
    @Test func anSDKListenerResumesThroughNginxWhenItsNodeIsKilled() async throws {
        let cluster = try ClusterScript.start(nodes: 2, port: 19100, postgresPort: 19600)
        defer { cluster.stop() }
        let app = HearthApp(
            name: "failover", options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:\(cluster.port)")!, projectID: "demo"))
        let values = ClusterSDKTests.Values()
        let listening = ClusterSDKTests.collect(app.database.reference("chat"), into: values)
        func waitFor(_ text: String) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if values.all.last?.contains(text) == true { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
        do {
            let first = try await ClusterScript.put(port: cluster.nodePort(1), "/chat/m0.json", body: #""hello""#)
            #expect(first.0 == 200)
            #expect(try await waitFor(#""m0":"hello""#), "the listener never saw the first message: \(values.all)")
            // Whichever node the client's WebSocket went to through nginx, one of these two kills is its node's.
            for (killed, survivor, message) in [(1, 2, "m1"), (2, 1, "m2")] {
                try cluster.kill(killed)
                let written = try await ClusterScript.put(
                    port: cluster.nodePort(survivor), "/chat/\(message).json", body: #""after node \#(killed) died""#)
                #expect(written.0 == 200)
                #expect(
                    try await waitFor(#""\#(message)":"after node \#(killed) died""#),
                    "the listener did not resume after node \(killed) was killed: \(values.all.suffix(3))")
                try cluster.restart(killed)
            }
        } catch {
            listening.cancel()
            await app.close()
            throw error
        }
        listening.cancel()
        await app.close()
    }
}

/// `scripts/cluster`, run by a test with its own folder and ports.
struct ClusterScript {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/cluster").path
    static var nginxInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    let folder: String
    let port: Int

    func nodePort(_ node: Int) -> Int { port + node }

    static func start(nodes: Int, port: Int, postgresPort: Int) throws -> ClusterScript {
        let folder = NSTemporaryDirectory() + "hearth-cluster-" + UUID().uuidString
        let cluster = ClusterScript(folder: folder, port: port)
        // A start that fails half-way leaves what it started running: stop that before throwing.
        do {
            try cluster.run([
                "start", "--dir", folder, "--nodes", "\(nodes)", "--port", "\(port)", "--postgres-port", "\(postgresPort)", "--", "--dev",
            ])
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// `PUT path` with the `--dev` admin token; returns the status.
    static func put(port: Int, _ path: String, body: String) async throws -> (UInt, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer owner")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    func kill(_ node: Int) throws { try run(["kill", "\(node)", "--dir", folder]) }
    func restart(_ node: Int) throws { try run(["restart", "\(node)", "--dir", folder]) }

    func stop() {
        try? run(["stop", "--dir", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HEARTH_BIN"] = try HearthProcess.binary.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SandboxError(arguments: ["cluster"] + arguments, status: process.terminationStatus)
        }
    }
}
